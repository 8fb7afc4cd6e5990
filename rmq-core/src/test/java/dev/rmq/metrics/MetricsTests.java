package dev.rmq.metrics;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class MetricsTests extends StandaloneRedisTest {

    @Test
    void reportsSendsMergesConsumesRetriesDeadAndLatenessWithLowCardinalityTags() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RmqClient rmq = RmqClient.builder(redisson).metrics(new MicrometerRmqMetrics(registry))
                .topic(TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(2).maxRetries(1)
                        .backoff(BackoffPolicy.fixed(Duration.ofMillis(50))).build())
                .build();
        Instant due = Instant.ofEpochMilli(redisTimeMs() + 1000);
        rmq.producer().send(OutgoingMessage.fixedTime("orders", "ok", due).withKey("ok"));
        rmq.producer().send(OutgoingMessage.fixedTime("orders", "ok", due).withKey("ok"));
        rmq.producer().sendAll(List.of(OutgoingMessage.fixedTime("orders", "bad", due).withKey("bad")));

        RmqConsumerContainer<String> container = rmq.container("orders", String.class,
                m -> m.payload().equals("ok") ? ConsumeResult.success() : ConsumeResult.retry("no")).build();
        container.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> rmq.deadQueue().count("orders") == 1);
        } finally {
            container.stop();
        }

        assertThat(registry.get("rmq.send").tags("topic", "orders", "type", "fixed_time", "result", "success").timer().count())
                .isEqualTo(3);
        assertThat(registry.get("rmq.send.messages").counter().count()).isEqualTo(3);
        assertThat(registry.get("rmq.merges").counter().count()).isEqualTo(1);
        assertThat(registry.get("rmq.consume").tag("result", "success").timer().count()).isEqualTo(1);
        assertThat(registry.get("rmq.consume").tag("result", "retry").timer().count()).isEqualTo(2);
        assertThat(registry.get("rmq.retries").counter().count()).isEqualTo(1);
        assertThat(registry.get("rmq.dead").counter().count()).isEqualTo(1);
        assertThat(registry.get("rmq.lateness").summary().count()).isEqualTo(3);
        assertThat(registry.get("rmq.lateness").summary().max()).isLessThan(5_000);
        for (Meter meter : registry.getMeters()) {
            // an outage is counted by who saw it: "producer", or "consumer" with its topic
            List<String> allowed = meter.getId().getName().startsWith("rmq.redis.outage")
                    ? List.of("who", "topic") : List.of("topic", "type", "result");
            assertThat(meter.getId().getTags()).allSatisfy(tag -> assertThat(tag.getKey()).isIn(allowed));
        }

        SlotStats totals = rmq.inspector().totals("orders");
        assertThat(totals.dead()).isEqualTo(1);
        assertThat(totals.backlog()).isZero();
        assertThat(totals.inFlight()).isZero();
    }

    @Test
    void aTopicsMetersStartAtZeroSoThatARateOverThemIsZeroRatherThanAbsent() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RmqClient.builder(redisson).metrics(new MicrometerRmqMetrics(registry))
                .topic(TopicDefinition.builder("timers", TopicType.FIXED_TIME).build())
                .topic(TopicDefinition.builder("jobs", TopicType.PRIORITY).build())
                .build().close();

        for (String topic : List.of("timers", "jobs")) {
            for (String counter : List.of("rmq.send.messages", "rmq.merges", "rmq.retries", "rmq.dead", "rmq.ack.stale",
                    "rmq.lease.recovered")) {
                assertThat(registry.get(counter).tag("topic", topic).counter().count()).as(counter).isZero();
            }
            assertThat(registry.get("rmq.consume").tags("topic", topic, "result", "success").timer().count()).isZero();
            assertThat(registry.get("rmq.redis.outages").tags("who", "consumer", "topic", topic).counter().count())
                    .isZero();
        }
        assertThat(registry.get("rmq.lateness").tag("topic", "timers").summary().count()).isZero();
        assertThat(registry.find("rmq.lateness").tag("topic", "jobs").summary()).as("priorities are never late")
                .isNull();
        assertThat(registry.get("rmq.redis.outages").tags("who", "producer", "topic", "").counter().count()).isZero();
    }
}
