/** The API's own description, in OpenAPI 3.1, served from the jar. */
package dev.rmq.server.api.openapi;
