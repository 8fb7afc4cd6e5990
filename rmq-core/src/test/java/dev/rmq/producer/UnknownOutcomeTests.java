package dev.rmq.producer;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * A batch whose calls Redis does not answer in time: Redis holds the calls (CLIENT PAUSE, as a stalled
 * connection does) past the client's timeout and runs them later. The batch must not claim more than is known.
 */
class UnknownOutcomeTests extends StandaloneRedisTest {

    private RedissonClient impatient;
    private RmqClient rmq;

    @BeforeEach
    void client() {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.address()).setTimeout(250).setRetryAttempts(0);
        impatient = Redisson.create(config);
        rmq = RmqClient.builder(impatient)
                .topic(Fixtures.topic("tasks", TopicType.PRIORITY, 4))
                .topic(Fixtures.topic("orders", TopicType.FIXED_TIME, 4))
                .build();
    }

    @AfterEach
    void close() {
        redis.command("CLIENT", "UNPAUSE");
        rmq.close();
        impatient.shutdown();
    }

    @Test
    void aBatchRedisHoldsPastTheTimeoutIsUnknownNotFailedAndItsResendMergesIntoWhatWasStored() {
        RmqProducer producer = rmq.producer();
        producer.send(OutgoingMessage.priority("tasks", "warm-up", 17).withKey("warm-up"));
        Instant due = Instant.ofEpochMilli(redisTimeMs() + 60_000);
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            batch.add(OutgoingMessage.priority("tasks", "p" + i, 100).withKey("p" + i));
            batch.add(OutgoingMessage.fixedTime("orders", "f" + i, due).withKey("f" + i));
        }

        redis.command("CLIENT", "PAUSE", "2000", "WRITE");
        BatchSendException failed = catchThrowableOfType(BatchSendException.class, () -> producer.sendAll(batch));
        redis.command("CLIENT", "UNPAUSE");

        assertThat(failed.outcomes()).allSatisfy(outcome -> {
            assertThat(outcome.status()).isEqualTo(SendOutcome.Status.UNKNOWN);
            assertThat(outcome.error()).isInstanceOf(RmqUnavailableException.class);
        });
        assertThat(failed.stored()).isEmpty();
        assertThat(failed.toResend()).containsExactlyElementsOf(batch);
        assertThat(failed).hasMessageStartingWith("batch of 50 message(s): 0 stored, 0 refused, 50 unknown (Redis did not"
                + " answer for them: they may be stored)");
        // Redis ran the held calls once it went on: the outcome was unknown, not a failure
        await().atMost(Duration.ofSeconds(5)).until(() -> rmq.inspector().totals("orders").backlog() == 25
                && rmq.inspector().totals("tasks").backlog() == 26);

        List<SendReceipt> again = producer.sendAll(failed.toResend());

        assertThat(again).allSatisfy(receipt -> assertThat(receipt.merged()).isTrue());
        assertThat(rmq.inspector().totals("orders").backlog()).isEqualTo(25);
        assertThat(rmq.inspector().totals("tasks").backlog()).isEqualTo(26);
    }
}
