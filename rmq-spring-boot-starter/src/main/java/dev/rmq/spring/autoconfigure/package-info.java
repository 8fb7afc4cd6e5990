/**
 * Spring Boot auto-configuration of rmq, in Spring Boot's own style: one {@code public final}
 * {@code @AutoConfiguration} class per concern, each bean backing off when the application defines its
 * own, all configured by {@link dev.rmq.spring.autoconfigure.RmqProperties} ({@code rmq.*}).
 * <ul>
 * <li>{@link dev.rmq.spring.autoconfigure.RmqRedisAutoConfiguration}: the Redisson client;</li>
 * <li>{@link dev.rmq.spring.autoconfigure.RmqZooKeeperAutoConfiguration}: the Curator client;</li>
 * <li>{@link dev.rmq.spring.autoconfigure.RmqCoordinationAutoConfiguration}: with a Curator client, the
 * coordinator and the ZooKeeper slot assignment;</li>
 * <li>{@link dev.rmq.spring.autoconfigure.RmqAutoConfiguration}: client, producer, dead queue, listeners;</li>
 * <li>{@link dev.rmq.spring.autoconfigure.RmqHealthContributorAutoConfiguration} and
 * {@link dev.rmq.spring.autoconfigure.RmqEndpointAutoConfiguration}: actuator;</li>
 * <li>metrics: {@link dev.rmq.spring.autoconfigure.metrics.RmqMetricsAutoConfiguration}.</li>
 * </ul>
 */
@NullMarked
package dev.rmq.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
