package dev.rmq.testsupport;

import dev.rmq.embedded.RedisServer;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RedisExtension.class)
class RedisTestServersTests {

    private static RedisServer injectedEarlier;

    @Test
    void theSharedClusterIsStartedOnceAndReused() {
        RedisCluster first = RedisTestServers.sharedCluster();

        assertThat(RedisTestServers.sharedCluster()).isSameAs(first);
        assertThat(first.masters()).hasSize(3);
        assertThat(first.masterForSlot(first.keySlot("k")).command("SET", "k", "v")).isEqualTo("OK");
    }

    @Test
    void newStandaloneStartsAnIndependentServer() {
        try (RedisServer a = RedisTestServers.newStandalone(); RedisServer b = RedisTestServers.newStandalone()) {
            assertThat(a.port()).isNotEqualTo(b.port());
            a.command("SET", "only-in-a", "1");
            assertThat(b.command("EXISTS", "only-in-a")).isEqualTo(0L);
        }
    }

    @Test
    void theExtensionInjectsTheSharedClusterAndOneServerPerClass(RedisCluster cluster, RedisServer redis) {
        assertThat(cluster).isSameAs(RedisTestServers.sharedCluster());
        assertThat(redis.command("PING")).isEqualTo("PONG");
        rememberOrCompare(redis);
    }

    @Test
    void theExtensionReusesTheClassServerAcrossMethods(RedisServer redis) {
        rememberOrCompare(redis);
    }

    private static synchronized void rememberOrCompare(RedisServer redis) {
        if (injectedEarlier == null) {
            injectedEarlier = redis;
        } else {
            assertThat(redis).isSameAs(injectedEarlier);
        }
    }
}
