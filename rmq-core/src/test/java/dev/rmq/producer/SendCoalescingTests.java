package dev.rmq.producer;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.testsupport.TcpProxy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Single sends that come while a call is out go together in the next call, of their slot, or on one Redis of any
 * slot of their topic: a hundred concurrent sends cost two script calls, not a hundred, and each still gets its own
 * receipt or refusal. The link to Redis is held through a proxy, so that the first call is certainly out while the
 * others come.
 */
class SendCoalescingTests extends StandaloneRedisTest {

    private TcpProxy link;
    private RedissonClient viaLink;
    private RmqClient rmq;
    /** The send buffer of the client {@link #producer} builds. */
    private long bufferBytes = RmqClient.DEFAULT_SEND_BUFFER_BYTES;
    /** Where the client {@link #producer} builds holds its sends; null for none. */
    private @Nullable TransactionLike hold;

    private RmqProducer producer(TopicDefinition topic) {
        return producer(topic, 10_000);
    }

    private RmqProducer producer(TopicDefinition topic, int timeoutMs) {
        link = TcpProxy.to(redis.host(), redis.port());
        Config config = new Config();
        config.useSingleServer().setAddress(link.redisAddress()).setTimeout(timeoutMs).setRetryAttempts(1)
                .setRetryInterval(100);
        viaLink = Redisson.create(config);
        RmqClient.Builder builder = RmqClient.builder(viaLink).topic(topic).sendBufferBytes(bufferBytes);
        if (hold != null) {
            builder.sendHold(hold);
        }
        rmq = builder.build();
        // the scripts are loaded and the connection is up before anything is counted
        rmq.producer().send(OutgoingMessage.rangeMerge(topic.name(), "warm", Duration.ofHours(1)).withKey("warm"));
        redis.command("CONFIG", "RESETSTAT");
        return rmq.producer();
    }

    /** Sends k0 .. k99 (payloads m0 .. m99) without waiting. */
    private static List<CompletableFuture<SendReceipt>> sendHundred(RmqProducer producer, TopicDefinition topic) {
        List<CompletableFuture<SendReceipt>> sends = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            sends.add(producer.sendAsync(OutgoingMessage.rangeMerge(topic.name(), "m" + i, Duration.ofHours(1))
                    .withKey("k" + i)).toCompletableFuture());
        }
        return sends;
    }

    @AfterEach
    void close() {
        if (link != null) {
            link.heal();
        }
        if (rmq != null) {
            rmq.close();
        }
        if (viaLink != null) {
            viaLink.shutdown();
        }
        if (link != null) {
            link.close();
        }
    }


    @Test
    void sendsThatComeWhileACallIsOutShareTheNextCall() {
        TopicDefinition topic = TopicDefinition.builder("coalesced", TopicType.RANGE_MERGE).slotAmount(1).build();
        RmqProducer producer = producer(topic);
        link.stall();
        List<CompletableFuture<SendReceipt>> sends = sendHundred(producer, topic);
        assertThat(sends).noneMatch(CompletableFuture::isDone);
        link.heal();

        for (int i = 0; i < sends.size(); i++) {
            SendReceipt receipt = sends.get(i).join();
            assertThat(receipt.key()).isEqualTo("k" + i);
            assertThat(receipt.merged()).isFalse();
        }
        assertThat(scriptCalls()).as("the first send alone, then the 99 that came while it was out").isEqualTo(2);
        assertThat(rmq.inspector().counts(topic.name()).total().waiting()).isEqualTo(101);
        assertThat(producer.get(MessageRef.of(topic.name(), "k57"))).hasValueSatisfying(m ->
                assertThat(m.payloadText()).isEqualTo("m57"));
    }

    @Test
    void onOneRedisSendsSpreadOverATopicsSlotsShareACallAndEachLandsInItsSlot() {
        TopicDefinition topic = TopicDefinition.builder("spread", TopicType.RANGE_MERGE).slotAmount(16).build();
        RmqProducer producer = producer(topic);
        link.stall();
        List<CompletableFuture<SendReceipt>> sends = sendHundred(producer, topic);
        link.heal();

        int[] perSlot = new int[16];
        for (int i = 0; i < sends.size(); i++) {
            SendReceipt receipt = sends.get(i).join();
            assertThat(receipt.key()).isEqualTo("k" + i);
            assertThat(receipt.slot()).as("k%d's slot", i).isEqualTo(topic.slotOf("k" + i, null));
            perSlot[receipt.slot()]++;
        }
        assertThat(java.util.Arrays.stream(perSlot).filter(n -> n > 0).count()).as("slots the keys spread over")
                .isGreaterThan(10);
        assertThat(scriptCalls()).as("the first send alone, then the 99 of all slots that came while it was out")
                .isEqualTo(2);
        for (int slot = 0; slot < 16; slot++) {
            assertThat(rmq.inspector().counts(topic.name()).slots().get(slot).waiting()).as("slot %d", slot)
                    .isEqualTo(perSlot[slot] + (topic.slotOf("warm", null) == slot ? 1 : 0));
        }
        assertThat(producer.get(MessageRef.of(topic.name(), "k57"))).hasValueSatisfying(m ->
                assertThat(m.payloadText()).isEqualTo("m57"));
    }

    @Test
    void aCappedTopicKeepsALaneForEachSlotSinceItsCallsCarryOneSlotEach() {
        TopicDefinition topic = TopicDefinition.builder("capped-spread", TopicType.RANGE_MERGE).slotAmount(16)
                .maxBacklog(1_000).build();
        RmqProducer producer = producer(topic);
        link.stall();
        List<CompletableFuture<SendReceipt>> sends = new ArrayList<>();
        int[] perSlot = new int[16];
        for (int i = 0; i < 40; i++) {
            sends.add(producer.sendAsync(OutgoingMessage.rangeMerge(topic.name(), "m" + i, Duration.ofHours(1))
                    .withKey("k" + i)).toCompletableFuture());
            perSlot[topic.slotOf("k" + i, null)]++;
        }
        link.heal();

        for (int i = 0; i < sends.size(); i++) {
            assertThat(sends.get(i).join().key()).isEqualTo("k" + i);
        }
        long expected = java.util.Arrays.stream(perSlot).filter(n -> n > 0).map(n -> n == 1 ? 1 : 2).sum();
        assertThat(scriptCalls()).as("each slot's first send alone, then its others together in its next call")
                .isEqualTo(expected);
        assertThat(rmq.inspector().counts(topic.name()).total().waiting()).isEqualTo(41);
    }

    @Test
    void aSlotsSendsKeepTheirOrderSoARepeatedKeyMergesAsItWouldOneCallEach() {
        TopicDefinition topic = TopicDefinition.builder("ordered", TopicType.RANGE_MERGE).slotAmount(1).build();
        RmqProducer producer = producer(topic);
        link.stall();
        List<CompletableFuture<SendReceipt>> sends = new ArrayList<>();
        for (String payload : List.of("first", "second", "third")) {
            sends.add(producer.sendAsync(OutgoingMessage.rangeMerge(topic.name(), payload, Duration.ofHours(1))
                    .withKey("same")).toCompletableFuture());
        }
        link.heal();

        assertThat(sends.stream().map(s -> s.join().merged()).toList()).containsExactly(false, true, true);
        assertThat(scriptCalls()).isEqualTo(2);
        assertThat(producer.get(MessageRef.of(topic.name(), "same"))).hasValueSatisfying(m ->
                assertThat(m.payloadText()).isEqualTo("third"));
    }

    @Test
    void eachMessageOfASharedCallGetsItsOwnRefusal() {
        TopicDefinition topic = TopicDefinition.builder("capped", TopicType.RANGE_MERGE).slotAmount(1).maxBacklog(5)
                .build();
        RmqProducer producer = producer(topic);
        link.stall();
        List<CompletionStage<SendReceipt>> sends = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            sends.add(producer.sendAsync(OutgoingMessage.rangeMerge(topic.name(), "m" + i, Duration.ofHours(1))
                    .withKey("k" + i)));
        }
        link.heal();

        // "warm" is the first of the five places
        for (int i = 0; i < 4; i++) {
            assertThat(sends.get(i).toCompletableFuture().join().key()).isEqualTo("k" + i);
        }
        for (int i = 4; i < 10; i++) {
            CompletableFuture<SendReceipt> refused = sends.get(i).toCompletableFuture();
            assertThatThrownBy(refused::join).isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(BacklogFullException.class).hasMessageContaining("k" + i);
        }
        assertThat(scriptCalls()).isEqualTo(2);
        assertThat(rmq.inspector().counts(topic.name()).total().waiting()).isEqualTo(5);
    }

    @Test
    void aFailedCallFailsItsSendsAndThoseWaitingBehindItAtOnceAndTheSlotGoesOn() {
        TopicDefinition topic = TopicDefinition.builder("failing", TopicType.RANGE_MERGE).slotAmount(1).build();
        RmqProducer producer = producer(topic, 500);
        link.stall();
        CompletableFuture<SendReceipt> out = producer.sendAsync(OutgoingMessage.rangeMerge(topic.name(), "first",
                Duration.ofHours(1)).withKey("first")).toCompletableFuture();
        List<CompletableFuture<SendReceipt>> behind = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            behind.add(producer.sendAsync(OutgoingMessage.rangeMerge(topic.name(), "m" + i, Duration.ofHours(1))
                    .withKey("k" + i)).toCompletableFuture());
        }

        assertThatThrownBy(out::join).as("the call out times out: its outcome is unknown")
                .isInstanceOf(CompletionException.class);
        for (CompletableFuture<SendReceipt> send : behind) {
            assertThat(send).isCompletedExceptionally();
            assertThatThrownBy(send::join).cause().isInstanceOf(RmqUnavailableException.class)
                    .hasMessageContaining("not sent");
        }
        link.heal();
        assertThat(producer.send(OutgoingMessage.rangeMerge(topic.name(), "later", Duration.ofHours(1))
                .withKey("later")).key()).as("the slot takes sends again").isEqualTo("later");
    }

    @Test
    void sendsPastTheSendBufferFailAtOnceUnsentAndThoseWithinItGoOnceRedisAnswers() {
        bufferBytes = 4096;
        TopicDefinition topic = TopicDefinition.builder("buffered", TopicType.RANGE_MERGE).slotAmount(1).build();
        RmqProducer producer = producer(topic);
        String payload = "x".repeat(500);
        link.stall();
        List<CompletableFuture<SendReceipt>> sends = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            sends.add(producer.sendAsync(OutgoingMessage.rangeMerge(topic.name(), payload, Duration.ofHours(1))
                    .withKey("k" + i)).toCompletableFuture());
        }

        // the first is out on the stalled link; about 4096 / 500 wait behind it, and the rest are refused at once
        List<CompletableFuture<SendReceipt>> refused = sends.stream()
                .filter(CompletableFuture::isCompletedExceptionally).toList();
        List<CompletableFuture<SendReceipt>> accepted = sends.stream().filter(send -> !send.isDone()).toList();
        assertThat(accepted.size() + refused.size()).as("none has come back yet").isEqualTo(20);
        assertThat(accepted).hasSizeBetween(1 + 5, 1 + 8);
        for (CompletableFuture<SendReceipt> send : refused) {
            assertThatThrownBy(send::join).cause().isInstanceOfSatisfying(SendBufferFullException.class, full -> {
                assertThat(full.bufferBytes()).isEqualTo(4096);
                assertThat(full.waitingBytes()).isBetween(4096L - 600, 4096L);
                assertThat(full).hasMessageContaining("not sent").hasMessageContaining("sendBufferBytes");
            });
        }
        link.heal();
        accepted.forEach(CompletableFuture::join);
        assertThat(rmq.inspector().totals(topic.name()).backlog()).as("warm and the accepted, not the refused")
                .isEqualTo(1 + accepted.size());
        List<CompletableFuture<SendReceipt>> again = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            again.add(producer.sendAsync(OutgoingMessage.rangeMerge(topic.name(), payload, Duration.ofHours(1))
                    .withKey("again" + i)).toCompletableFuture());
        }
        again.forEach(send -> assertThat(send.join().key()).as("the buffer is empty again").startsWith("again"));
    }

    @Test
    void sendsACommitReleasesAreNeverRefusedByTheBufferSinceNoOneWouldSendThemAgain() {
        bufferBytes = 4096;
        hold = new TransactionLike();
        TopicDefinition topic = TopicDefinition.builder("held", TopicType.RANGE_MERGE).slotAmount(1).build();
        RmqProducer producer = producer(topic);
        String payload = "x".repeat(500);
        hold.begin();
        List<CompletableFuture<SendReceipt>> sends = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            sends.add(producer.sendAsync(OutgoingMessage.rangeMerge(topic.name(), payload, Duration.ofHours(1))
                    .withKey("k" + i)).toCompletableFuture());
        }
        link.stall();
        hold.commit();
        // all 20 wait behind the first, past the buffer: they are committed, so none is refused
        assertThat(sends).noneMatch(CompletableFuture::isDone);
        CompletableFuture<SendReceipt> meanwhile = producer.sendAsync(OutgoingMessage.rangeMerge(topic.name(),
                payload, Duration.ofHours(1)).withKey("meanwhile")).toCompletableFuture();
        assertThat(meanwhile).as("a send of its own still meets the full buffer").isCompletedExceptionally();
        link.heal();
        sends.forEach(send -> assertThat(send.join().outcome()).isEqualTo(SendReceipt.Outcome.ADDED));
        assertThat(rmq.inspector().totals(topic.name()).backlog()).isEqualTo(1 + 20);
    }
}
