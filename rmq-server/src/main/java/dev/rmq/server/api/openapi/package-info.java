/** The API's own description, in OpenAPI 3.1, served from the jar. */
@NullMarked
package dev.rmq.server.api.openapi;

import org.jspecify.annotations.NullMarked;
