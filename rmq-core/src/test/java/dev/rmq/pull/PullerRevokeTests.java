package dev.rmq.pull;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.SlotAssignment;
import dev.rmq.consumer.SlotOwner;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A slot revoked from a puller on the assignment's thread while the puller's own poll of it is on its way: the
 * revoke completes only once what that poll took has ended, so that the slot's next owner cannot take it too.
 */
class PullerRevokeTests extends StandaloneRedisTest {

    private static final TopicDefinition JOBS = TopicDefinition.builder("revoked-jobs", TopicType.PRIORITY)
            .slotAmount(1).leaseTimeout(Duration.ofSeconds(30)).build();

    @Test
    void aRevokeDuringAPollOfTheSlotWaitsForWhatThePollTookToEnd() throws Exception {
        RmqClient rmq = closedAfterTest(RmqClient.builder(redisson).topics(List.of(JOBS)).build());
        ByHand assignment = new ByHand();
        RmqPuller<String> puller = closedAfterTest(rmq.puller(String.class).topics(JOBS.name())
                .assignment(() -> assignment).build());
        puller.start();
        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "job", 100).withKey("job"));

        // Redis holds every client's commands for a second: the puller's poll stays on its way meanwhile
        redis.command("CLIENT", "PAUSE", "1000", "ALL");
        CompletableFuture<List<PulledMessage<String>>> pulled =
                CompletableFuture.supplyAsync(() -> puller.poll(1, Duration.ofSeconds(10)));
        Thread pulling = await().atMost(Duration.ofSeconds(5)).until(PullerRevokeTests::pollingThread, t -> t != null);

        CompletionStage<Void> revoked = assignment.owner.revoke(0);
        assertThat(revoked.toCompletableFuture()).as("revoked while the poll is on its way, in %s", pulling.getName())
                .isNotDone();

        List<PulledMessage<String>> got = pulled.get();
        assertThat(got).extracting(PulledMessage::key).containsExactly("job");
        assertThat(revoked.toCompletableFuture()).as("the delivery it took holds its lease").isNotDone();
        assertThat(got.get(0).ack()).isEqualTo(AckOutcome.COMMITTED);
        revoked.toCompletableFuture().get();
        assertThat(puller.poll(1, Duration.ZERO)).as("the slot is let go").isEmpty();
    }

    /** The thread that polls a slot now, waiting for the script's reply: null while none does. */
    private static Thread pollingThread() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> Arrays.stream(e.getValue()).anyMatch(frame ->
                        frame.getClassName().equals("dev.rmq.internal.slot.SlotSession")
                                && frame.getMethodName().startsWith("poll")))
                .map(Map.Entry::getKey).findFirst().orElse(null);
    }

    /** Gives the topic's one slot to the puller, unfenced, and lets the test take it back. */
    private static final class ByHand implements SlotAssignment {

        volatile SlotOwner owner;

        @Override
        public void start(TopicDefinition topic, List<? extends SlotOwner> workers) {
            owner = workers.get(0);
            owner.assign(0, "", Duration.ZERO);
        }

        @Override
        public void close() {
        }
    }
}
