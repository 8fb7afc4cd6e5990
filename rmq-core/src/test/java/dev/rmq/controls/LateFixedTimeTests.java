package dev.rmq.controls;

import dev.rmq.producer.TimeInPastException;
import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.SendReceipt;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import io.micrometer.core.instrument.DistributionSummary;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class LateFixedTimeTests extends ControlsTest {

    @Test
    void aFixedTimeJustPassedIsDeliveredAtOnceAndItsReceiptAndAMetricSayItWasLate() {
        RmqClient rmq = client(TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(1).build());
        long now = redisTimeMs();

        SendReceipt receipt = rmq.producer().send(OutgoingMessage.fixedTime("orders", "o", Instant.ofEpochMilli(now - 2_000))
                .withKey("o"));

        assertThat(receipt.late()).isTrue();
        assertThat(receipt.lateBy()).isBetween(Duration.ofMillis(2_000), Duration.ofMillis(2_000 + redisTimeMs() - now));
        DistributionSummary late = meters.find("rmq.send.late").tags("topic", "orders").summary();
        assertThat(late.count()).isEqualTo(1);
        assertThat(late.max()).isGreaterThanOrEqualTo(2_000);
        List<String> handled = new CopyOnWriteArrayList<>();
        start(rmq, "orders", String.class, m -> {
            handled.add(m.key());
            return ConsumeResult.success();
        });
        await().atMost(Duration.ofSeconds(2)).until(() -> handled.size() == 1);
        SendReceipt onTime = rmq.producer().send(OutgoingMessage.fixedTime("orders", "p", Instant.ofEpochMilli(
                redisTimeMs() + 60_000)).withKey("p"));
        assertThat(onTime.late()).isFalse();
        assertThat(onTime.lateBy()).isZero();
    }

    @Test
    void aFixedTimeFurtherBehindThanTheToleranceIsRefusedNamingTheTimeTheClockAndTheTolerance() {
        RmqClient rmq = client(TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(1)
                .lateTolerance(Duration.ofMillis(500)).build());
        long past = redisTimeMs() - 1_000;

        assertThatExceptionOfType(TimeInPastException.class).isThrownBy(() -> rmq.producer().send(
                        OutgoingMessage.fixedTime("orders", "o", Instant.ofEpochMilli(past)).withKey("o")))
                .withMessageStartingWith("fixed time " + Instant.ofEpochMilli(past) + " of key \"o\" in topic 'orders' is ")
                .withMessageContaining(" ms behind the Redis clock (")
                .withMessageEndingWith("more than the topic's late tolerance of 500 ms; nothing was written")
                .satisfies(e -> {
                    assertThat(e.time()).isEqualTo(Instant.ofEpochMilli(past));
                    assertThat(e.redisClock()).isAfterOrEqualTo(Instant.ofEpochMilli(past + 1_000));
                    assertThat(e.tolerance()).isEqualTo(Duration.ofMillis(500));
                });
        assertThat(rmq.inspector().totals("orders").backlog()).isZero();
    }

    @Test
    void sendsScheduledAFewMillisecondsAheadAreAllTakenWhateverTheirTrip() {
        RmqClient rmq = client(TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(4).build());
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            // as a new user would: now by this JVM's clock plus 0 to 7 ms, sent in batches of 500
            Instant due = Instant.now().plusMillis(ThreadLocalRandom.current().nextInt(8));
            batch.add(OutgoingMessage.fixedTime("orders", "o" + i, due).withKey("o" + i));
            if (batch.size() == 500) {
                rmq.producer().sendAll(batch);
                batch.clear();
            }
        }
        assertThat(rmq.inspector().totals("orders").backlog()).isEqualTo(20_000);
    }
}
