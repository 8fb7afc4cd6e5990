/**
 * The web console: pages of the topics, their slots, messages and dead queues, served on the application's own web
 * server under {@code rmq.dashboard.path}, inside its own security. It reads and acts only through the client's
 * inspector, dead queue, admin and producer.
 */
@NullMarked
package dev.rmq.spring.console;

import org.jspecify.annotations.NullMarked;
