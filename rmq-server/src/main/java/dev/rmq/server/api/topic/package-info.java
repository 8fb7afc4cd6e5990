/**
 * Operating topics over HTTP: their definitions, counts, the next messages, pause and resume, and the dead
 * queue. The topics themselves are defined in the configuration.
 */
@NullMarked
package dev.rmq.server.api.topic;

import org.jspecify.annotations.NullMarked;
