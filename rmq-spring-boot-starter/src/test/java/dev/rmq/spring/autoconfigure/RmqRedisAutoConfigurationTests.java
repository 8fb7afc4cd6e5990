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
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where the Redisson client comes from: the application's own bean, {@code rmq.redis.*}, Spring Data Redis's
 * connection details or {@code spring.data.redis.*}; single server, ACL credentials and Cluster, each against a
 * real server.
 */
class RmqRedisAutoConfigurationTests {

    private static RedisServer redis;

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class, RmqAutoConfiguration.class))
            .withPropertyValues("rmq.topics.orders.type=FIXED_TIME", "rmq.topics.orders.slot-amount=4");
    /**
     * With Spring Data Redis in the application: rmq follows its connection details when they come from a service
     * connection or the application (here a bean, as {@code @ServiceConnection} registers one), and keeps to
     * {@code rmq.redis.*} and to its own reading of {@code spring.data.redis.*} otherwise.
     */
    private final ApplicationContextRunner withSpringDataRedis = contextRunner
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class));

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
    void runsTheScriptsByEvalshaWhenToldTo() {
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.redis.script-mode=evalsha")
                .run(context -> {
                    redis.command("CONFIG", "RESETSTAT");
                    sendsAndCounts(context.getBean(RmqClient.class));
                    assertThat(redis.info("commandstats")).containsKey("cmdstat_evalsha").doesNotContainKey("cmdstat_fcall");
                });
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.redis.script-mode=eval")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("No enum constant dev.rmq.ScriptMode.eval"));
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

    /** A service connection's details: a server, a database and an ACL user. */
    private static DataRedisConnectionDetails serviceConnection(int port) {
        return new DataRedisConnectionDetails() {
            @Override
            public String getUsername() {
                return "alice";
            }

            @Override
            public String getPassword() {
                return "s3cret";
            }

            @Override
            public Standalone getStandalone() {
                return Standalone.of("127.0.0.1", port, 3);
            }
        };
    }

    @Test
    void followsAServiceConnectionsDetailsWithItsUserAndDatabase() {
        withSpringDataRedis.withBean(DataRedisConnectionDetails.class, () -> serviceConnection(redis.port()))
                .withPropertyValues("rmq.redis.client-name=from-service-connection")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(RmqRedisConnectionDetails.class))
                            .isInstanceOf(DataRedisRmqConnectionDetails.class);
                    sendsAndCounts(context.getBean(RmqClient.class));
                    assertThat(clientLines("name=from-service-connection")).isNotEmpty()
                            .allSatisfy(line -> assertThat(line).contains("user=alice", "db=3"));
                });
    }

    @Test
    void rmqRedisPropertiesComeBeforeSpringDataRedisDetails() {
        // the service connection points nowhere: rmq must not use it
        withSpringDataRedis.withBean(DataRedisConnectionDetails.class, () -> serviceConnection(1))
                .withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.redis.client-name=from-rmq")
                .run(context -> connectsByRmqsOwnProperties(context, "from-rmq"));
    }

    @Test
    void bootsOwnDetailsOfSpringDataRedisPropertiesAreReadByRmqsProperties() {
        withSpringDataRedis.withPropertyValues("spring.data.redis.host=127.0.0.1",
                "spring.data.redis.port=" + redis.port(), "spring.data.redis.client-name=from-spring-data")
                .run(context -> connectsByRmqsOwnProperties(context, "from-spring-data"));
    }

    /** The client connected through rmq's properties-based details, under {@code clientName}, and works. */
    private static void connectsByRmqsOwnProperties(AssertableApplicationContext context, String clientName) {
        assertThat(context).hasNotFailed();
        assertThat(context.getBean(RmqRedisConnectionDetails.class)).isInstanceOf(PropertiesRmqRedisConnectionDetails.class);
        sendsAndCounts(context.getBean(RmqClient.class));
        assertThat(clientLines("name=" + clientName)).isNotEmpty();
    }

    @Test
    void sentinelAndClusterDetailsKeepTheirShape() {
        DataRedisConnectionDetails sentinel = new DataRedisConnectionDetails() {
            @Override
            public Sentinel getSentinel() {
                return new Sentinel() {
                    public int getDatabase() {
                        return 1;
                    }

                    public String getMaster() {
                        return "mymaster";
                    }

                    public List<Node> getNodes() {
                        return List.of(new Node("10.0.0.1", 26379), new Node("10.0.0.2", 26379));
                    }

                    public String getUsername() {
                        return null;
                    }

                    public String getPassword() {
                        return null;
                    }
                };
            }
        };
        DataRedisRmqConnectionDetails viaSentinel = new DataRedisRmqConnectionDetails(sentinel);
        assertThat(viaSentinel.mode()).isEqualTo(RmqRedisConnectionDetails.Mode.SENTINEL);
        assertThat(viaSentinel.sentinelMaster()).isEqualTo("mymaster");
        assertThat(viaSentinel.addresses()).containsExactly("10.0.0.1:26379", "10.0.0.2:26379");
        assertThat(viaSentinel.database()).isEqualTo(1);

        DataRedisConnectionDetails cluster = new DataRedisConnectionDetails() {
            @Override
            public Cluster getCluster() {
                return () -> List.of(new Node("10.0.0.3", 7000), new Node("10.0.0.4", 7001));
            }
        };
        DataRedisRmqConnectionDetails viaCluster = new DataRedisRmqConnectionDetails(cluster);
        assertThat(viaCluster.mode()).isEqualTo(RmqRedisConnectionDetails.Mode.CLUSTER);
        assertThat(viaCluster.addresses()).containsExactly("10.0.0.3:7000", "10.0.0.4:7001");
        assertThat(viaCluster.database()).isNull();
    }

    @Test
    void aStaticMasterAndReplicasIsRefusedWithWhatToSetInstead() {
        DataRedisConnectionDetails masterReplica = new DataRedisConnectionDetails() {
            @Override
            public MasterReplica getMasterReplica() {
                return () -> List.of(new Node("10.0.0.5", 6379));
            }
        };
        assertThatThrownBy(() -> new DataRedisRmqConnectionDetails(masterReplica).addresses())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("static master and replicas").hasMessageContaining("rmq.redis.address");
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
