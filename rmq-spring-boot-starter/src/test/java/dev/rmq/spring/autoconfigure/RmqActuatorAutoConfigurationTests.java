package dev.rmq.spring.autoconfigure;

import dev.rmq.embedded.RedisServer;
import dev.rmq.spring.RedisAndZooKeeper;
import dev.rmq.spring.TestRedisson;
import dev.rmq.testsupport.RedisTestServers;
import org.apache.curator.test.TestingServer;
import dev.rmq.RmqClient;
import dev.rmq.admin.RmqAdmin;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.spring.annotation.RmqListener;
import dev.rmq.spring.actuate.RmqEndpoint;
import dev.rmq.spring.actuate.RmqEndpointViews;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.testsupport.TcpProxy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The health contributor and the {@code rmq} endpoint: when they apply, and what the endpoint may write. */
@ExtendWith(RedisAndZooKeeper.class)
class RmqActuatorAutoConfigurationTests {


    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class, RmqZooKeeperAutoConfiguration.class,
                    RmqAutoConfiguration.class, RmqHealthContributorAutoConfiguration.class,
                    EndpointAutoConfiguration.class, RmqEndpointAutoConfiguration.class))
            .withPropertyValues("rmq.redis.address=" + RedisAndZooKeeper.redis().address(), "rmq.topics.jobs.type=PRIORITY",
                    "rmq.topics.jobs.slot-amount=2", "rmq.topics.jobs.max-retries=0",
                    "management.endpoints.web.exposure.include=rmq");

    @Test
    void reportsRedisHealthAndZooKeeperHealthWhenThereIsACurator() {
        contextRunner.withPropertyValues("rmq.zookeeper.connect-string=" + RedisAndZooKeeper.zookeeper().getConnectString()).run(context -> {
            CompositeHealthContributor rmq = (CompositeHealthContributor) context.getBean("rmqHealthContributor");
            assertThat(((HealthIndicator) rmq.getContributor("redis")).health().getStatus()).isEqualTo(Status.UP);
            assertThat(((HealthIndicator) rmq.getContributor("zookeeper")).health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void reportsOnlyRedisWithoutZooKeeper() {
        contextRunner.run(context -> {
            CompositeHealthContributor rmq = (CompositeHealthContributor) context.getBean("rmqHealthContributor");
            assertThat(rmq.getContributor("redis")).isNotNull();
            assertThat(rmq.getContributor("zookeeper")).isNull();
        });
    }

    @Test
    void reportsZooKeeperDownWhenItsServerStops() throws Exception {
        try (TestingServer doomed = new TestingServer(true)) {
            contextRunner.withPropertyValues("rmq.zookeeper.connect-string=" + doomed.getConnectString(),
                    "rmq.zookeeper.session-timeout=5s").run(context -> {
                HealthIndicator health = (HealthIndicator) ((CompositeHealthContributor) context.getBean("rmqHealthContributor"))
                        .getContributor("zookeeper");
                assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                doomed.stop();
                await().atMost(Duration.ofSeconds(20)).until(() -> health.health().getStatus().equals(Status.DOWN));
            });
        }
    }

    @Test
    void reportsAContainerDownWhileItsCallsDoNotReachRedisAndUpOnceTheyDo() {
        TcpProxy link = TcpProxy.to(RedisAndZooKeeper.redis().host(), RedisAndZooKeeper.redis().port());
        RedissonClient viaLink = TestRedisson.impatient(link.redisAddress(), 400);
        try {
            RmqClient own = RmqClient.builder(viaLink).outageThreshold(Duration.ofMillis(500))
                    .topic(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(2).build()).build();
            RmqConsumerContainer<String> container = own.container("jobs", String.class, m -> ConsumeResult.success())
                    .id("jobs-c").build();
            contextRunner.withBean(RmqClient.class, () -> own).run(context -> {
                HealthIndicator health = (HealthIndicator) ((CompositeHealthContributor) context
                        .getBean("rmqHealthContributor")).getContributor("containers");
                container.start();
                try {
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                    link.stall();
                    await().atMost(Duration.ofSeconds(10)).until(() -> health.health().getStatus().equals(Status.DOWN));
                    assertThat(health.health().getDetails().get("unreachable").toString())
                            .startsWith("{jobs-c=Redis unreachable for ");
                    link.heal();
                    await().atMost(Duration.ofSeconds(10)).until(() -> health.health().getStatus().equals(Status.UP));
                } finally {
                    container.stop();
                }
            });
        } finally {
            link.close();
            viaLink.shutdown();
        }
    }

    @Test
    void pingsTheRedisThatRmqUsesRatherThanTheApplicationsRedissonClient() {
        RedisServer rmqRedis = RedisTestServers.newStandalone();
        RedissonClient rmqRedisson = TestRedisson.impatient(rmqRedis.address(), 500);
        try {
            RmqClient own = RmqClient.builder(rmqRedisson)
                    .topic(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(2).build()).build();
            contextRunner.withPropertyValues("rmq.redis.timeout=500ms").withBean(RmqClient.class, () -> own)
                    .run(context -> {
                        HealthIndicator health = (HealthIndicator) ((CompositeHealthContributor) context
                                .getBean("rmqHealthContributor")).getContributor("redis");
                        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                        rmqRedis.close();
                        // the application's own client still reaches its Redis; rmq's does not
                        assertThat(context.getBean(RedissonClient.class).getKeys().count()).isNotNegative();
                        assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
                    });
        } finally {
            rmqRedisson.shutdown();
            rmqRedis.close();
        }
    }

    @Test
    void backsOffFromTheHealthContributorWhenDisabledOrDefined() {
        contextRunner.withPropertyValues("management.health.rmq.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("rmqHealthContributor"));
        HealthIndicator own = () -> Health.up().build();
        contextRunner.withBean("rmqHealthContributor", HealthContributor.class, () -> own)
                .run(context -> assertThat(context.getBean("rmqHealthContributor")).isSameAs(own));
    }

    @Test
    void writesFollowSpringBootsEndpointAccessAndAreOffByDefault() {
        contextRunner.run(context -> assertThat(context.getBean(RmqEndpoint.class).overview().writeOperations())
                .isFalse());
        contextRunner.withPropertyValues("management.endpoint.rmq.access=READ_ONLY")
                .run(context -> assertThat(context.getBean(RmqEndpoint.class).overview().writeOperations()).isFalse());
        contextRunner.withPropertyValues("management.endpoint.rmq.access=UNRESTRICTED")
                .run(context -> assertThat(context.getBean(RmqEndpoint.class).overview().writeOperations()).isTrue());
    }

    @Test
    void theOldSwitchOfRmqsOwnFailsStartUpSayingWhatReplacedIt() {
        contextRunner.withPropertyValues("rmq.endpoint.write-operations-enabled=true").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("rmq.endpoint.write-operations-enabled"
                        + " is no longer read").hasMessageContaining("management.endpoint.rmq.access=UNRESTRICTED"));
    }

    @Test
    void requeuesAndPurgesDeadMessagesWhenWritesAreEnabled() {
        contextRunner.withPropertyValues("management.endpoint.rmq.access=UNRESTRICTED")
                .withBean(FailingListener.class).run(context -> {
                    RmqEndpoint endpoint = context.getBean(RmqEndpoint.class);
                    RmqProducer producer = context.getBean(RmqProducer.class);
                    RmqDeadQueue dead = context.getBean(RmqDeadQueue.class);
                    producer.send(OutgoingMessage.priority("jobs", "a", 100).withKey("a").withSlotBasis("x"));
                    producer.send(OutgoingMessage.priority("jobs", "b", 100).withKey("b").withSlotBasis("x"));
                    await().atMost(Duration.ofSeconds(10)).until(() -> dead.count("jobs") == 2);
                    int slot = context.getBean(RmqClient.class).topics().require("jobs").slotOf("x");

                    assertThat(endpoint.slot("jobs", slot, null, null, null).deadMessages())
                            .extracting(RmqEndpointViews.DeadEntry::reason, RmqEndpointViews.DeadEntry::lastError)
                            .containsOnly(org.assertj.core.groups.Tuple.tuple("retries_spent", "never"));
                    assertThat(endpoint.requeue("jobs", slot, "a").messages()).isEqualTo(1);
                    await().atMost(Duration.ofSeconds(10)).until(() -> dead.count("jobs") == 2);
                    assertThat(endpoint.delete("jobs", slot, "a").messages()).isEqualTo(1);
                    assertThat(endpoint.purge("jobs").messages()).isEqualTo(1);
                    assertThat(dead.count("jobs")).isZero();
                    assertThat(endpoint.purge("no-such-topic")).isNull();
                });
    }

    @Test
    void pausesAndResumesATopicForEveryConsumerAndShowsItsState() {
        contextRunner.withPropertyValues("management.endpoint.rmq.access=UNRESTRICTED").run(context -> {
            RmqEndpoint endpoint = context.getBean(RmqEndpoint.class);
            assertThat(endpoint.topic("jobs", null, null, null, null, null).state()).isEqualTo("running");

            RmqEndpoint.Change paused = endpoint.change("jobs", "pause", SecurityContext.NONE);
            assertThat(paused.operation()).isEqualTo("pause");
            assertThat(paused.state()).isEqualTo("paused");
            assertThat(endpoint.overview().topics()).filteredOn(t -> t.definition().name().equals("jobs")).singleElement()
                    .satisfies(t -> assertThat(t.state()).isEqualTo("paused"));
            assertThat(endpoint.topic("jobs", null, null, null, null, null).slots()).allSatisfy(slot -> assertThat(slot.paused()).isTrue());
            assertThat(context.getBean(RmqAdmin.class).pauseState("jobs").paused()).isTrue();

            assertThat(endpoint.change("jobs", "resume", SecurityContext.NONE).state()).isEqualTo("running");
            assertThat(endpoint.topic("jobs", null, null, null, null, null).state()).isEqualTo("running");
            assertThatThrownBy(() -> endpoint.change("jobs", "explode", SecurityContext.NONE))
                    .isInstanceOf(InvalidEndpointRequestException.class)
                    .hasMessage("action must be pause, resume, clear or requeue, was 'explode'");
            assertThat(endpoint.change("no-such-topic", "pause", SecurityContext.NONE)).isNull();
        });
    }

    @Test
    void aHistoryWithoutAJournalIsABadRequestThatSaysWhatItNeeds() {
        contextRunner.run(context -> {
            RmqEndpoint endpoint = context.getBean(RmqEndpoint.class);
            assertThatThrownBy(() -> endpoint.history("jobs", "history", "4711"))
                    .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("needs a journal");
            assertThat(endpoint.history("jobs", "elsewhere", "4711")).as("404").isNull();
            assertThat(endpoint.history("no-such-topic", "history", "4711")).as("404").isNull();
        });
    }

    @Test
    void clearsATopicsWaitingMessagesAndLeavesItsDeadOnes() {
        contextRunner.withPropertyValues("management.endpoint.rmq.access=UNRESTRICTED").run(context -> {
            RmqEndpoint endpoint = context.getBean(RmqEndpoint.class);
            RmqClient client = context.getBean(RmqClient.class);
            // the Redis is shared with other tests: start from an empty topic
            endpoint.change("jobs", "clear", SecurityContext.NONE);
            List<OutgoingMessage> batch = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                batch.add(OutgoingMessage.priority("jobs", "m" + i, 50).withKey("clear-" + i));
            }
            client.producer().sendAll(batch);
            long deadBefore = client.inspector().counts("jobs").total().dead();

            RmqEndpoint.Change cleared = endpoint.change("jobs", "clear", SecurityContext.NONE);

            assertThat(cleared.operation()).isEqualTo("clear");
            assertThat(cleared.messages()).isEqualTo(7);
            assertThat(client.inspector().counts("jobs").total().waiting()).isZero();
            assertThat(client.inspector().counts("jobs").total().dead()).isEqualTo(deadBefore);
        });
    }

    @Test
    void backsOffFromTheApplicationsOwnEndpoint() {
        contextRunner.withUserConfiguration(OwnEndpoint.class).run(context -> {
            assertThat(context).hasSingleBean(RmqEndpoint.class);
            assertThat(context.getBean(RmqEndpoint.class).overview().assignment()).isEqualTo("mine");
        });
    }

    @Test
    void isAbsentWhenNotExposed() {
        contextRunner.withPropertyValues("management.endpoints.web.exposure.include=health")
                .run(context -> assertThat(context).doesNotHaveBean(RmqEndpoint.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnEndpoint {
        @Bean
        RmqEndpoint ownEndpoint(RmqClient client) {
            return new RmqEndpoint(client, null, null, "mine", () -> false);
        }
    }

    static class FailingListener {
        @RmqListener(topic = "jobs")
        ConsumeResult fail(String payload) {
            return ConsumeResult.retry("never");
        }
    }
}
