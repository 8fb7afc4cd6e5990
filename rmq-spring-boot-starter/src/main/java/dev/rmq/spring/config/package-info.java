/**
 * The Spring side of consumption, in spring-kafka's roles: the
 * {@link dev.rmq.spring.config.RmqListenerAnnotationBeanPostProcessor} turns each
 * {@link dev.rmq.spring.annotation.RmqListener} method into an
 * {@link dev.rmq.spring.config.RmqListenerEndpoint} (a description), the
 * {@link dev.rmq.spring.config.RmqListenerEndpointRegistrar} stages them, the
 * {@link dev.rmq.spring.config.RmqListenerEndpointRegistry} (a {@code SmartLifecycle}) owns and runs the
 * containers, which an {@link dev.rmq.spring.config.RmqListenerContainerFactory} builds on rmq-core.
 *
 * <p>{@link dev.rmq.spring.config.RmqSlotAssignmentFactory} is the single point where slot assignment is
 * chosen. The actuator pieces live here too: the {@code rmq} endpoint and the Redis and ZooKeeper health
 * indicators.
 */
package dev.rmq.spring.config;
