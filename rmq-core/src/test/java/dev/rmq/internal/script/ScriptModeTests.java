package dev.rmq.internal.script;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.ScriptMode;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.exceptions.RmqException;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * How rmq's scripts run: as Redis Functions where Redis has them, by EVALSHA where it has not or where the client
 * is told so, and the same work done either way. On Redis 6.2 (the CI step that runs on the embedded binary) the
 * default client is the one that falls back.
 */
class ScriptModeTests extends StandaloneRedisTest {

    private static final TopicDefinition TASKS = TopicDefinition.builder("tasks", TopicType.PRIORITY).slotAmount(2)
            .build();

    @Test
    void byDefaultEveryCallIsAFunctionCallWhereRedisHasFunctionsAndEvalshaWhereItHasNot() {
        List<String> payloads = sendPullAndAck(redisson, ScriptMode.FUNCTIONS);

        assertThat(payloads).containsExactly("p3", "p2", "p1");
        if (Fixtures.hasFunctions(redis)) {
            assertThat(calls("fcall")).as("FCALL calls").isPositive();
            assertThat(calls("evalsha")).as("EVALSHA calls").isZero();
            assertThat(calls("eval")).as("EVAL calls: the one that asks Redis's version, and the one that asks"
                    + " whether a call may carry several slots").isEqualTo(2);
            assertThat(String.valueOf(redis.command("FUNCTION", "LIST", "LIBRARYNAME", "rmq_*")))
                    .as("the libraries loaded").contains(Arrays.stream(Script.values()).map(Script::functionName)
                            .toArray(String[]::new));
        } else {
            assertThat(calls("evalsha")).as("EVALSHA calls").isPositive();
            assertThat(calls("fcall")).as("FCALL calls").isZero();
        }
    }

    @Test
    void aClientStartingOnARedisThatNeverRanAScriptMeetsNoErrorReply() {
        Fixtures.forgetScripts(redis);

        List<String> payloads = sendPullAndAck(redisson, ScriptMode.FUNCTIONS);

        assertThat(payloads).containsExactly("p3", "p2", "p1");
        assertThat(redis.info("errorstats")).as("error replies Redis counted (INFO errorstats)").isEmpty();
    }

    @Test
    void aClientToldToUseEvalshaNeverCallsAFunction() {
        Fixtures.forgetScripts(redis); // the libraries another test's client loaded, so that none is found below
        List<String> payloads = sendPullAndAck(redisson, ScriptMode.EVALSHA);

        assertThat(payloads).containsExactly("p3", "p2", "p1");
        assertThat(calls("evalsha")).as("EVALSHA calls").isPositive();
        assertThat(calls("fcall")).as("FCALL calls").isZero();
        if (Fixtures.hasFunctions(redis)) {
            assertThat(String.valueOf(redis.command("FUNCTION", "LIST", "LIBRARYNAME", "rmq_*"))).doesNotContain("rmq_");
        }
    }

    @Test
    void aUserNotAllowedToLoadFunctionsIsServedByEvalsha() {
        assumeThat(Fixtures.hasFunctions(redis)).as("Redis 7 or later, where FUNCTION exists to be refused").isTrue();
        redis.command("ACL", "SETUSER", "limited", "on", ">limited-secret", "~*", "&*", "+@all", "-function");
        Config config = new Config();
        config.useSingleServer().setAddress(redis.address()).setUsername("limited").setPassword("limited-secret")
                .setConnectionMinimumIdleSize(1).setConnectionPoolSize(4).setRetryAttempts(1).setTimeout(3000);
        RedissonClient limited = Redisson.create(config);
        try {
            List<String> payloads = sendPullAndAck(limited, ScriptMode.FUNCTIONS);

            assertThat(payloads).containsExactly("p3", "p2", "p1");
            assertThat(calls("evalsha")).as("EVALSHA calls").isPositive();
            assertThat(calls("fcall")).as("FCALL calls").isZero();
        } finally {
            limited.shutdown();
            redis.command("ACL", "DELUSER", "limited");
        }
    }

    /**
     * While Redis's memory is full a send is refused, and what frees memory still runs: a consumer can drain the
     * queue. A Function with no flags would be refused outright then, acknowledgements included.
     */
    @Test
    void whileRedisMemoryIsFullSendsAreRefusedAndAcknowledgementsStillRun() {
        try (RmqClient rmq = RmqClient.builder(redisson).topic(TASKS).build()) {
            rmq.producer().send(OutgoingMessage.priority("tasks", "p1", 20).withKey("k1"));
            RmqPuller<String> puller = rmq.puller(String.class).topics("tasks").build();
            puller.start();
            List<PulledMessage<String>> pulled = puller.poll(1, Duration.ofSeconds(5));
            assertThat(pulled).hasSize(1);
            redis.command("CONFIG", "SET", "maxmemory", "1");
            try {
                assertThatThrownBy(() -> rmq.producer().send(OutgoingMessage.priority("tasks", "p2", 20).withKey("k2")))
                        .isInstanceOf(RmqException.class).hasMessageContaining("its memory is full")
                        .hasMessageContaining("nothing was written");
                assertThat(pulled.get(0).ack()).isEqualTo(AckOutcome.COMMITTED);
            } finally {
                redis.command("CONFIG", "SET", "maxmemory", "0");
            }
            assertThat(rmq.producer().exists(MessageRef.of("tasks", "k1"))).isFalse();
            assertThat(rmq.producer().exists(MessageRef.of("tasks", "k2"))).isFalse();
            puller.close();
        }
    }

    /** FUNCTION LOAD is refused while memory is full: a client that starts then still runs, by EVALSHA. */
    @Test
    void aClientThatStartsWhileRedisMemoryIsFullRunsItsScriptsByEvalsha() {
        redis.command("CONFIG", "RESETSTAT");
        redis.command("CONFIG", "SET", "maxmemory", "1");
        try (RmqClient rmq = RmqClient.builder(redisson).topic(TASKS).build()) {
            assertThat(rmq.inspector().counts("tasks").total().waiting()).isZero();
        } finally {
            redis.command("CONFIG", "SET", "maxmemory", "0");
        }
        assertThat(calls("evalsha")).as("EVALSHA calls").isPositive();
        assertThat(calls("fcall")).as("FCALL calls").isZero();
    }

    /** Sends three messages by single sends, pulls them one by one and acknowledges each; returns the payloads. */
    private static List<String> sendPullAndAck(RedissonClient client, ScriptMode mode) {
        redis.command("CONFIG", "RESETSTAT");
        List<String> payloads = new ArrayList<>();
        try (RmqClient rmq = RmqClient.builder(client).topic(TASKS).scriptMode(mode).build()) {
            for (int i = 1; i <= 3; i++) {
                rmq.producer().send(OutgoingMessage.priority("tasks", "p" + i, 20 + i).withKey("k" + i));
            }
            RmqPuller<String> puller = rmq.puller(String.class).topics("tasks").build();
            puller.start();
            for (int i = 0; i < 3; i++) {
                PulledMessage<String> message = puller.poll(1, Duration.ofSeconds(5)).get(0);
                payloads.add(message.payload());
                assertThat(message.ack()).isEqualTo(AckOutcome.COMMITTED);
            }
            puller.close();
        }
        return payloads;
    }

    private static long calls(String command) {
        String stats = redis.info("commandstats").getOrDefault("cmdstat_" + command, "calls=0,");
        return Long.parseLong(stats.replaceAll("^calls=(\\d+),.*", "$1"));
    }
}
