/**
 * Who may call the server. With API keys ({@code rmq.server.api-keys}) every request but the health endpoint
 * needs one as a bearer token, compared in constant time, and a read-only key may only read
 * ({@link dev.rmq.server.security.ApiKeyFilter}). Without keys the server listens on loopback only, and refuses to
 * start on a reachable address ({@link dev.rmq.server.security.LoopbackDefault}). There is no Spring Security: one
 * filter is all this takes.
 */
@NullMarked
package dev.rmq.server.security;

import org.jspecify.annotations.NullMarked;
