package dev.rmq.spring.autoconfigure;

import dev.rmq.spring.RedisAndZooKeeper;
import dev.rmq.RmqClient;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.spring.actuate.RmqEndpoint;
import dev.rmq.spring.actuate.RmqEndpointViews;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The puller bean, the zone of the client, and the endpoint's pages of queued messages. */
@ExtendWith(RedisAndZooKeeper.class)
class RmqPullerAutoConfigurationTests {


    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class, RmqZooKeeperAutoConfiguration.class,
                    RmqCoordinationAutoConfiguration.class, RmqAutoConfiguration.class, RmqPullerAutoConfiguration.class,
                    RmqEndpointAutoConfiguration.class))
            .withPropertyValues("rmq.redis.address=" + RedisAndZooKeeper.redis().address(), "rmq.topics.jobs.type=PRIORITY",
                    "rmq.topics.jobs.slot-amount=4", "rmq.topics.zoned.type=FIXED_TIME",
                    "rmq.topics.zoned.slot-amount=4", "rmq.topics.zoned.zones=eu-1,eu-2",
                    "management.endpoints.web.exposure.include=rmq");

    @Test
    void noPullerUnlessTopicsAreNamed() {
        contextRunner.run(context -> assertThat(context).doesNotHaveBean(RmqPuller.class));
    }

    @Test
    void aPullerOverTheNamedTopicsHandsOverPayloadsAsJsonText() {
        RedisAndZooKeeper.redis().command("FLUSHALL");
        contextRunner.withPropertyValues("rmq.puller.topics=jobs", "rmq.puller.id=batch-job").run(context -> {
            @SuppressWarnings("unchecked")
            RmqPuller<String> puller = context.getBean(RmqPuller.class);
            assertThat(puller.isRunning()).isTrue();
            assertThat(puller.id()).isEqualTo("batch-job");
            assertThat(puller.topics()).containsExactly("jobs");
            context.getBean(RmqProducer.class).send(OutgoingMessage.priority("jobs", Map.of("order", 42), 100)
                    .withKey("o-42"));

            List<PulledMessage<String>> got = puller.poll(10, Duration.ofSeconds(5));

            assertThat(got).extracting(PulledMessage::payload).containsExactly("{\"order\":42}");
            assertThat(got.get(0).ack()).isEqualTo(AckOutcome.COMMITTED);
        });
    }

    @Test
    void theEndpointShowsAMessageInFlightWithItsProgressBesideItsLeaseDeadline() {
        RedisAndZooKeeper.redis().command("FLUSHALL");
        contextRunner.withPropertyValues("rmq.puller.topics=jobs").run(context -> {
            @SuppressWarnings("unchecked")
            RmqPuller<String> puller = context.getBean(RmqPuller.class);
            context.getBean(RmqProducer.class).send(OutgoingMessage.priority("jobs", "export", 100).withKey("e-1"));
            List<PulledMessage<String>> got = puller.poll(1, Duration.ofSeconds(5));
            assertThat(got).hasSize(1);
            got.get(0).reportProgress(60, "sheet 3 of 5");

            RmqEndpointViews.MessageEntry running = context.getBean(RmqEndpoint.class)
                    .topic("jobs", "inflight", 0L, 10, null, null).messages().entries().get(0);

            assertThat(running.key()).isEqualTo("e-1");
            assertThat(running.leaseDeadline()).isEqualTo(got.get(0).leaseDeadline().toString());
            assertThat(running.progress()).isNotNull();
            assertThat(running.progress().percent()).isEqualTo(60);
            assertThat(running.progress().note()).isEqualTo("sheet 3 of 5");
            assertThat(got.get(0).ack()).isEqualTo(AckOutcome.COMMITTED);
        });
    }

    @Test
    void underZooKeeperThePullerTakesTheSlotsAssignedToIt() {
        contextRunner.withPropertyValues("rmq.puller.topics[0]=jobs", "rmq.zookeeper.connect-string="
                + RedisAndZooKeeper.zookeeper().getConnectString()).run(context -> {
            RmqPuller<?> puller = context.getBean(RmqPuller.class);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                    .until(() -> puller.ownedSlots().get("jobs").size() == 4);
        });
    }

    @Test
    void anApplicationsOwnPullerWins() {
        contextRunner.withPropertyValues("rmq.puller.topics=jobs").withUserConfiguration(OwnPuller.class)
                .run(context -> assertThat(context.getBean(RmqPuller.class).id()).isEqualTo("mine"));
    }

    @Test
    void theClientRunsInTheConfiguredZoneAndTheEndpointShowsZonesAndPages() {
        RedisAndZooKeeper.redis().command("FLUSHALL");
        contextRunner.withPropertyValues("rmq.zone=eu-2").run(context -> {
            RmqClient client = context.getBean(RmqClient.class);
            assertThat(client.zone()).isEqualTo("eu-2");
            long now = System.currentTimeMillis();
            for (int i = 0; i < 5; i++) {
                client.producer().send(OutgoingMessage.fixedTime("zoned", "o" + i,
                        java.time.Instant.ofEpochMilli(now + 60_000 + i * 1_000L)).withKey("o" + i));
            }
            RmqEndpoint endpoint = context.getBean(RmqEndpoint.class);

            RmqEndpointViews.TopicDetail detail = endpoint.topic("zoned", "waiting", 0L, 3, null, null);

            assertThat(detail.zones()).containsOnlyKeys("eu-1", "eu-2");
            assertThat(detail.zones().get("eu-2").later()).isEqualTo(5);
            assertThat(detail.zones().get("eu-1").waiting()).isZero();
            assertThat(detail.slots()).extracting(RmqEndpointViews.SlotDetail::zone)
                    .containsExactly("eu-1", "eu-2", "eu-1", "eu-2");
            assertThat(detail.messages().entries()).extracting(RmqEndpointViews.MessageEntry::key)
                    .containsExactly("o0", "o1", "o2");
            assertThat(detail.messages().entries().get(0).dueTime()).isNotNull();
            assertThat(endpoint.overview().zone()).isEqualTo("eu-2");
            assertThatThrownBy(() -> endpoint.topic("zoned", "sideways", null, null, null, null))
                    .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("view must be");
            assertThatThrownBy(() -> endpoint.topic("zoned", "waiting", 990L, 20, null, null))
                    .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("at most 1000 deep");

            // the first page gives a cursor, which pages on at any depth; newest first runs the other way
            String next = detail.messages().next();
            RmqEndpointViews.MessagePage second = endpoint.topic("zoned", "waiting", null, 3, next, null).messages();
            assertThat(second.offset()).isNull();
            assertThat(second.entries()).extracting(RmqEndpointViews.MessageEntry::key).containsExactly("o3", "o4");
            assertThat(second.next()).isNull();
            assertThat(endpoint.topic("zoned", "waiting", null, 2, null, "newest").messages().entries())
                    .extracting(RmqEndpointViews.MessageEntry::key).containsExactly("o4", "o3");
            assertThatThrownBy(() -> endpoint.topic("zoned", "waiting", 3L, 3, next, null))
                    .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("without an offset");
            assertThatThrownBy(() -> endpoint.topic("zoned", "inflight", null, 3, null, "newest"))
                    .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("view=waiting");
            assertThatThrownBy(() -> endpoint.topic("zoned", "waiting", null, 3, "not-a-cursor", null))
                    .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("cursor");
            assertThatThrownBy(() -> endpoint.topic("zoned", "waiting", null, 3, null, "sideways"))
                    .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("order is first");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnPuller {

        @Bean(destroyMethod = "close")
        RmqPuller<String> myPuller(RmqClient client) {
            return client.puller(String.class).topics("jobs").id("mine").build();
        }
    }
}
