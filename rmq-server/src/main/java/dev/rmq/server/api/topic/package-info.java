/**
 * Operating topics over HTTP: their definitions, counts, the next messages, pause and resume, and the dead
 * queue. The topics themselves are defined in the configuration.
 */
package dev.rmq.server.api.topic;
