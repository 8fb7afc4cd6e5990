package dev.rmq.producer;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.testsupport.TcpProxy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * On a Redis that takes keys of several hash slots in one call, a batch spread over a topic's slots goes in one
 * script call; a Redis that refuses such a call (here an ACL that forbids the keys the client asks with, as a
 * sharded Redis behind one address refuses them with CROSSSLOT) gets the batch slot by slot, and nothing is lost.
 */
class SharedSendCallsTests extends StandaloneRedisTest {

    private static final TopicDefinition TOPIC = TopicDefinition.builder("shared_calls", TopicType.RANGE_MERGE)
            .slotAmount(16).build();

    @Test
    void aBatchOverManySlotsIsOneCall() {
        try (RmqClient rmq = RmqClient.builder(redisson).topic(TOPIC).build()) {
            // the first call asks Redis whether calls may carry several slots
            rmq.producer().send(message("warm"));
            redis.command("CONFIG", "RESETSTAT");

            List<SendReceipt> receipts = rmq.producer().sendAll(batch(40));

            assertThat(receipts).hasSize(40);
            assertThat(scriptCalls()).isEqualTo(1);
            assertThat(rmq.inspector().counts(TOPIC.name()).total().waiting()).isEqualTo(41);
        }
    }

    @Test
    void aRedisThatRefusesCallsOverSeveralHashSlotsGetsTheBatchSlotBySlot() {
        // the user reaches the topic's keys (and their names before the key prefix), not the keys the client asks with
        redis.command("ACL", "SETUSER", "one-tag", "on", ">one-tag-secret", "~*shared_calls*", "&*", "+@all");
        Config config = new Config();
        config.useSingleServer().setAddress(redis.address()).setUsername("one-tag").setPassword("one-tag-secret")
                .setRetryAttempts(1).setTimeout(3000);
        RedissonClient limited = Redisson.create(config);
        try (RmqClient rmq = RmqClient.builder(limited).topic(TOPIC).build()) {
            rmq.producer().send(message("warm"));
            redis.command("CONFIG", "RESETSTAT");
            List<OutgoingMessage> batch = batch(40);
            Set<Integer> slots = new HashSet<>();
            batch.forEach(m -> slots.add(TOPIC.slotOf(m.key(), null)));

            List<SendReceipt> receipts = rmq.producer().sendAll(batch);

            assertThat(receipts).hasSize(40);
            assertThat(scriptCalls()).as("one call per slot of the batch").isEqualTo(slots.size());
            assertThat(rmq.inspector().counts(TOPIC.name()).total().waiting()).isEqualTo(41);
        } finally {
            limited.shutdown();
            redis.command("ACL", "DELUSER", "one-tag");
        }
    }

    @Test
    void aUserAllowedOnlyItsOwnKeyPrefixStillSharesCalls() {
        // the ACL a deployment gives a client of its own prefix: that prefix's keys, nothing else
        redis.command("ACL", "SETUSER", "own-prefix", "on", ">own-prefix-secret", "~myapp:*", "&*", "+@all");
        Config config = new Config();
        config.useSingleServer().setAddress(redis.address()).setUsername("own-prefix")
                .setPassword("own-prefix-secret").setRetryAttempts(1).setTimeout(3000);
        RedissonClient limited = Redisson.create(config);
        try (RmqClient rmq = RmqClient.builder(limited).keyPrefix("myapp").namespace("shop").topic(TOPIC).build()) {
            rmq.producer().send(message("warm"));
            redis.command("CONFIG", "RESETSTAT");

            List<SendReceipt> receipts = rmq.producer().sendAll(batch(40));

            assertThat(receipts).hasSize(40);
            assertThat(scriptCalls()).as("the question named keys the user may name, and Redis said yes")
                    .isEqualTo(1);
            assertThat(rmq.inspector().counts(TOPIC.name()).total().waiting()).isEqualTo(41);
        } finally {
            limited.shutdown();
            redis.command("ACL", "DELUSER", "own-prefix");
        }
    }

    @Test
    void aClientThatCouldNotAskAtItsFirstCallAsksAgainOnceRedisAnswers() {
        TcpProxy link = TcpProxy.to(redis.host(), redis.port());
        Config config = new Config();
        config.useSingleServer().setAddress(link.redisAddress()).setTimeout(500).setRetryAttempts(1)
                .setRetryInterval(100);
        RedissonClient viaLink = Redisson.create(config);
        try (RmqClient rmq = RmqClient.builder(viaLink).topic(TOPIC).build()) {
            link.stall();
            assertThatThrownBy(() -> rmq.producer().send(message("first"))).as("Redis does not answer")
                    .isInstanceOf(RuntimeException.class);
            link.heal();

            // the question goes again with a call a second or more after the one that failed; until then, and
            // whatever the answer, every batch is stored
            AtomicInteger round = new AtomicInteger();
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
                redis.command("CONFIG", "RESETSTAT");
                List<SendReceipt> receipts = rmq.producer().sendAll(batch(40, "r" + round.incrementAndGet() + "-"));
                assertThat(receipts).hasSize(40);
                return scriptCalls() == 1;
            });
            assertThat(rmq.inspector().counts(TOPIC.name()).total().waiting()).isEqualTo(40L * round.get());
        } finally {
            link.heal();
            viaLink.shutdown();
            link.close();
        }
    }

    private static List<OutgoingMessage> batch(int size) {
        return batch(size, "k");
    }

    private static List<OutgoingMessage> batch(int size, String prefix) {
        List<OutgoingMessage> batch = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            batch.add(message(prefix + i));
        }
        return batch;
    }

    private static OutgoingMessage message(String key) {
        return OutgoingMessage.rangeMerge(TOPIC.name(), "payload of " + key, Duration.ofHours(1)).withKey(key);
    }
}
