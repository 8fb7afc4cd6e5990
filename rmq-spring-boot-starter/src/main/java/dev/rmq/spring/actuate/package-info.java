/**
 * rmq in Spring Boot Actuator: the {@code rmq} endpoint ({@link dev.rmq.spring.actuate.RmqEndpoint}, its answers in
 * {@link dev.rmq.spring.actuate.RmqEndpointViews}), and the Redis, listener-container and ZooKeeper health
 * indicators.
 */
@NullMarked
package dev.rmq.spring.actuate;

import org.jspecify.annotations.NullMarked;
