package dev.rmq.testsupport;

import dev.rmq.embedded.Poll;
import dev.rmq.embedded.RedisServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class RedisSentinelTests {

    @Test
    void theSentinelsPromoteTheReplicaWhenTheMasterIsKilledAndTheOldMasterRejoinsAsAReplica() {
        try (RedisSentinel sentinel = RedisSentinel.start()) {
            RedisServer first = sentinel.master();
            assertThat(first.role()).isEqualTo("master");
            assertThat(sentinel.sentinelNodes()).hasSize(3);
            first.command("SET", "k", "v");
            RedisServer replica = sentinel.dataNodes().stream().filter(n -> n != first).findFirst().orElseThrow();
            Poll.until(Duration.ofSeconds(10), () -> "v".equals(String.valueOf(replica.command("GET", "k"))),
                    () -> "the replica did not get the key");

            RedisServer killed = sentinel.killMaster();

            assertThat(killed).isSameAs(first);
            assertThat(sentinel.master()).isSameAs(replica);
            assertThat(replica.role()).isEqualTo("master");
            assertThat(String.valueOf(replica.command("GET", "k"))).isEqualTo("v");

            sentinel.rejoin(killed);

            assertThat(killed.role()).isEqualTo("slave");
            assertThat(String.valueOf(killed.command("GET", "k"))).isEqualTo("v");

            // and back: the promoted replica fails in its turn
            RedisServer second = sentinel.killMaster();
            assertThat(second).isSameAs(replica);
            assertThat(sentinel.master()).isSameAs(first);
            sentinel.rejoin(second);
            assertThat(second.role()).isEqualTo("slave");

        }
    }
}
