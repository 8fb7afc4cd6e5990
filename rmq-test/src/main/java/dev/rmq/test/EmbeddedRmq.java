package dev.rmq.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a Spring Boot test against a Redis of its own, and a ZooKeeper of its own when {@link #zookeeper()} asks:
 * a {@code redis-server} process and an in-process ZooKeeper on free loopback ports, started with the test's
 * application context and stopped when that context closes, after rmq's listeners have stopped.
 *
 * <pre>{@code
 * @SpringBootTest
 * @EmbeddedRmq
 * class OrderTimeoutTests {
 *     @Autowired RmqTester rmq;
 *
 *     @Test
 *     void closesAnUnpaidOrder() {
 *         rmq.sendAndAwait(OutgoingMessage.fixedTime("order-timeout", "o-1", Instant.now()));
 *         ...
 *     }
 * }
 * }</pre>
 *
 * <p>The servers reach rmq as {@code RmqRedisConnectionDetails} and {@code RmqZooKeeperConnectionDetails} beans,
 * which win over {@code rmq.redis.*}, {@code spring.data.redis.*} and {@code rmq.zookeeper.connect-string}; an
 * application's own {@code CuratorFramework} bean still wins over the ZooKeeper. An {@link RmqTester} bean is
 * added. Test classes with the same settings share one context, and so one pair of servers, through Spring's
 * context cache.
 *
 * <p>Redis is {@code redis-server} from {@code PATH} when there is one, otherwise the binary shipped in the
 * {@code embedded-redis} artifact ({@code -Drmq.test.redis=embedded} forces it).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface EmbeddedRmq {

    /**
     * Whether to start a ZooKeeper too, so that slots are assigned as in production: one consumer thread per slot.
     * Without it, the test's listeners consume every slot locally, as one instance of the application would.
     */
    boolean zookeeper() default false;
}
