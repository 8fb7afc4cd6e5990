package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import dev.rmq.metrics.SlotStats;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.testsupport.RedisCluster;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.RedisTestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the Redisson client comes from: the application's own bean, {@code rmq.redis.*} or
 * {@code spring.data.redis.*}; single server, ACL credentials and Cluster, each against a real server.
 */
class RmqRedisAutoConfigurationTests {

    private static RedisServer redis;

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class, RmqAutoConfiguration.class))
            .withPropertyValues("rmq.topics.orders.type=FIXED_TIME", "rmq.topics.orders.slot-amount=4");

    @BeforeAll
    static void startRedis() {
        redis = RedisTestServers.newStandalone();
        redis.command("ACL", "SETUSER", "alice", "on", ">s3cret", "~*", "&*", "+@all");
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Test
    void usesTheApplicationsOwnRedissonClient() {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.address());
        RedissonClient own = Redisson.create(config);
        try {
            contextRunner.withBean("ownRedisson", RedissonClient.class, () -> own)
                    .withPropertyValues("rmq.redis.address=redis://127.0.0.1:1")
                    .run(context -> {
                        assertThat(context).hasNotFailed().hasSingleBean(RedissonClient.class);
                        assertThat(context.getBean(RedissonClient.class)).isSameAs(own);
                    });
        } finally {
            own.shutdown();
        }
    }

    @Test
    void usesSpringDataRedisHostAndPortWhenRmqRedisNamesNoServer() {
        contextRunner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                "spring.data.redis.client-name=from-spring").run(context -> {
            sendsAndCounts(context.getBean(RmqClient.class));
            assertThat((String) redis.command("CLIENT", "LIST")).contains("name=from-spring");
        });
    }

    @Test
    void usesSpringDataRedisUrlWithCredentialsAndDatabase() {
        contextRunner.withPropertyValues("spring.data.redis.url=redis://alice:s3cret@127.0.0.1:" + redis.port() + "/2",
                "spring.data.redis.client-name=from-url").run(context -> {
            sendsAndCounts(context.getBean(RmqClient.class));
            assertThat(clientLines("name=from-url")).isNotEmpty()
                    .allSatisfy(line -> assertThat(line).contains("user=alice", "db=2"));
        });
    }

    @Test
    void prefersRmqRedisOverSpringDataRedis() {
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.redis.client-name=from-rmq",
                "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=1").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(clientLines("name=from-rmq")).isNotEmpty();
        });
    }

    @Test
    void authenticatesAsAnAclUser() {
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.redis.username=alice",
                "rmq.redis.password=s3cret", "rmq.redis.client-name=acl-user").run(context -> {
            sendsAndCounts(context.getBean(RmqClient.class));
            assertThat(clientLines("name=acl-user")).isNotEmpty().allSatisfy(line -> assertThat(line).contains("user=alice"));
        });
    }

    @Test
    void opensAFewConnectionsNotRedissonsTwentyFourIdleOnes() {
        contextRunner.withBean(Consumed.class).withPropertyValues("rmq.redis.address=" + redis.address(),
                "rmq.redis.client-name=pool-default").run(context -> {
            assertThat(context).hasNotFailed();
            consumesOne(context.getBean(RmqClient.class), context.getBean(Consumed.class));
            List<String> connections = clientLines("name=pool-default");
            LoggerFactory.getLogger(getClass()).info("an application with one listener holds {} connection(s)"
                    + " to Redis: {}", connections.size(), connections.stream().map(line -> line.replaceAll(
                    ".*(cmd=\\S+).*", "$1")).toList());
            // two kept idle, one for the wake-ups' subscription, and what a burst opened on top
            assertThat(connections).as("connections of an application with one listener").hasSizeBetween(3, 8);
        });
        contextRunner.withBean(Consumed.class).withPropertyValues("rmq.redis.address=" + redis.address(),
                "rmq.redis.client-name=pool-set", "rmq.redis.pool.minimum-idle=12").run(context -> {
            consumesOne(context.getBean(RmqClient.class), context.getBean(Consumed.class));
            assertThat(clientLines("name=pool-set")).as("with rmq.redis.pool.minimum-idle=12").hasSizeGreaterThan(12);
        });
    }

    @Test
    void refusesAPoolThatCannotHoldItsMinimum() {
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.redis.pool.size=4",
                "rmq.redis.pool.minimum-idle=5").run(context -> assertThat(context).getFailure().rootCause()
                .hasMessage("rmq.redis.pool.minimum-idle must be between 0 and the pool's size (4), was 5"));
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.redis.pool.size=0")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessage("rmq.redis.pool.size must be at least 1, was 0"));
    }

    private static void consumesOne(RmqClient client, Consumed consumed) {
        String key = "pool-" + System.nanoTime();
        client.producer().send(OutgoingMessage.fixedTime("orders", key, Instant.now()).withKey(key));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> consumed.keys.contains(key));
    }

    static class Consumed {
        final java.util.Set<String> keys = java.util.concurrent.ConcurrentHashMap.newKeySet();

        @dev.rmq.spring.annotation.RmqListener(topic = "orders")
        void handle(String payload) {
            keys.add(payload);
        }
    }

    @Test
    void failsStartUpClearlyOnAWrongPassword() {
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.redis.username=alice",
                "rmq.redis.password=wrong").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("WRONGPASS");
            assertThat(context.getStartupFailure()).hasStackTraceContaining("rmq could not connect to Redis at single server "
                    + redis.address() + " as user 'alice' (from rmq.redis)");
        });
    }

    @Test
    void connectsToARedisClusterFromItsNodes() {
        RedisCluster cluster = RedisTestServers.sharedCluster();
        contextRunner.withPropertyValues("rmq.redis.nodes=" + String.join(",", cluster.nodeAddresses()),
                "rmq.topics.orders.slot-amount=16").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(RedissonClient.class).getConfig().isClusterConfig()).isTrue();
            RmqClient client = context.getBean(RmqClient.class);
            for (int i = 0; i < 32; i++) {
                client.producer().send(OutgoingMessage.fixedTime("orders", "order " + i,
                        Instant.now().plusSeconds(600)).withKey("cluster-" + i));
            }
            SlotStats totals = client.inspector().totals("orders");
            assertThat(totals.backlog()).isEqualTo(32);
            for (int i = 0; i < 32; i++) {
                assertThat(client.producer().cancel(MessageRef.of("orders", "cluster-" + i))).isTrue();
            }
        });
    }

    private static void sendsAndCounts(RmqClient client) {
        String key = "probe-" + System.nanoTime();
        client.producer().send(OutgoingMessage.fixedTime("orders", "probe", Instant.now().plusSeconds(600))
                .withKey(key));
        assertThat(client.producer().exists(MessageRef.of("orders", key))).isTrue();
        assertThat(client.producer().cancel(MessageRef.of("orders", key))).isTrue();
    }

    private static List<String> clientLines(String fragment) {
        return ((String) redis.command("CLIENT", "LIST")).lines().filter(line -> line.contains(fragment)).toList();
    }
}
