/**
 * The Spring side of consumption, in spring-kafka's roles: the
 * {@link dev.rmq.spring.listener.RmqListenerAnnotationBeanPostProcessor} turns each
 * {@link dev.rmq.spring.annotation.RmqListener} method into an
 * {@link dev.rmq.spring.listener.RmqListenerEndpoint} (a description), the
 * {@link dev.rmq.spring.listener.RmqListenerEndpointRegistrar} stages them, the
 * {@link dev.rmq.spring.listener.RmqListenerEndpointRegistry} (a {@code SmartLifecycle}) owns and runs the
 * containers, which an {@link dev.rmq.spring.listener.RmqListenerContainerFactory} builds on rmq-core, configured
 * with Boot's defaults by the {@link dev.rmq.spring.listener.RmqListenerContainerFactoryConfigurer}.
 *
 * <p>{@link dev.rmq.spring.listener.RmqSlotAssignmentFactory} is the single point where slot assignment is chosen.
 */
@NullMarked
package dev.rmq.spring.listener;

import org.jspecify.annotations.NullMarked;
