package dev.rmq.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the consumer of an rmq topic. The method takes the payload, converted from JSON
 * with the application's Jackson mapper, or an {@link dev.rmq.consumer.RmqMessage RmqMessage&lt;T&gt;}
 * that also carries the key, slot, attempt, due time or priority, and headers. It may also take
 * {@code @Header("rmq_key")} style parameters.
 *
 * <p>What the method does decides the message's fate:
 * <ul>
 * <li>returning normally (void or any value), returning {@code true}, or returning
 * {@link dev.rmq.consumer.ConsumeResult#success()} commits;</li>
 * <li>throwing, returning {@code false}, or returning {@link dev.rmq.consumer.ConsumeResult#retry(String)}
 * rolls back for a retry after the topic's backoff (dead once the retries are spent);</li>
 * <li>returning {@link dev.rmq.consumer.ConsumeResult#dead(String)} moves the message to the dead queue at once.</li>
 * </ul>
 *
 * <p>String attributes accept {@code ${...}} placeholders and {@code #{...}} expressions, as
 * {@code @KafkaListener}'s do. An unknown topic or a signature that cannot be served fails start-up with
 * a message naming the bean and the method.
 *
 * <pre>{@code
 * @RmqListener(topic = "order-timeout", concurrency = "${orders.consumers:2}")
 * void closeIfUnpaid(Order order) { ... }
 * }</pre>
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RmqListener {

    /** The topic to consume; it must be defined under {@code rmq.topics} or as a {@code TopicDefinition} bean. */
    String topic();

    /**
     * The container's id, unique in the application; also names the worker threads ({@code rmq-<id>-<n>}).
     * Empty means {@code <topic>#<n>}.
     */
    String id() default "";

    /**
     * Worker threads of this listener's container. Empty means the topic's {@code concurrency}, else
     * {@code rmq.listener.concurrency}.
     */
    String concurrency() default "";

    /**
     * The most messages one poll takes from a slot. Empty means the topic's {@code batch-size}, else
     * {@code rmq.listener.batch-size}.
     */
    String batchSize() default "";

    /** Whether the container starts with the application; empty means {@code rmq.listener.auto-startup}. */
    String autoStartup() default "";

    /** The bean name of the {@code RmqListenerContainerFactory} to use; empty means the default one. */
    String containerFactory() default "";

    /**
     * The bean name of the {@link dev.rmq.consumer.RmqErrorHandler} that decides what this listener's exceptions do
     * to their messages; empty means the container factory's (the {@code rmqErrorHandler} bean).
     */
    String errorHandler() default "";
}
