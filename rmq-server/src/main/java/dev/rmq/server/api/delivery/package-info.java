/**
 * Consuming over HTTP: {@code POST /pull} hands out messages under tokens, and the {@code /deliveries/...}
 * endpoints settle them by token. The tokens and the puller are the {@code pull} package's.
 */
@NullMarked
package dev.rmq.server.api.delivery;

import org.jspecify.annotations.NullMarked;
