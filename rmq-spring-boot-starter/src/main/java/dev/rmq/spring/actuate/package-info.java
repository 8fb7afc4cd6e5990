/**
 * rmq in Spring Boot Actuator: the {@code rmq} endpoint ({@link dev.rmq.spring.actuate.RmqEndpoint}, its answers in
 * {@link dev.rmq.spring.actuate.RmqEndpointViews}), and the Redis, listener-container and ZooKeeper health
 * indicators.
 */
package dev.rmq.spring.actuate;
