/**
 * The JSON HTTP API, version 1, under {@value dev.rmq.server.api.Api#V1}: one subpackage per group of endpoints
 * ({@code message}, {@code delivery}, {@code topic}, {@code restore}, {@code openapi}) and {@code problem} for its
 * errors. This package holds what they share: reading request bodies field by field
 * ({@link dev.rmq.server.api.JsonBody}), showing payloads as JSON, and the view of a stored message.
 */
@NullMarked
package dev.rmq.server.api;

import org.jspecify.annotations.NullMarked;
