package dev.rmq.testsupport;

import dev.rmq.embedded.RedisServer;
import dev.rmq.embedded.RedisReplyException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RedisClusterTests {

    // A private cluster rather than the shared one: the failover test changes its topology.
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void closeCluster() {
        cluster.close();
    }

    @Test
    void startsThreeMastersAndThreeReplicasOnLoopbackPorts() {
        assertThat(cluster.nodes()).hasSize(6).allSatisfy(node -> assertThat(node.isRunning()).isTrue());
        assertThat(cluster.masters()).hasSize(3);
        assertThat(cluster.replicas()).hasSize(3);
        assertThat(cluster.nodeAddresses()).hasSize(6).doesNotHaveDuplicates()
                .allMatch(address -> address.matches("redis://127\\.0\\.0\\.1:\\d+"))
                .doesNotContain("redis://127.0.0.1:6379");
    }

    @Test
    void everyNodeReportsClusterStateOkWithAllSlotsAssigned() {
        for (RedisServer node : cluster.nodes()) {
            String info = (String) node.command("CLUSTER", "INFO");
            assertThat(RedisServer.parseInfo(info))
                    .as("CLUSTER INFO of %s", node)
                    .containsEntry("cluster_state", "ok")
                    .containsEntry("cluster_slots_assigned", "16384")
                    .containsEntry("cluster_known_nodes", "6")
                    .containsEntry("cluster_size", "3");
        }
    }

    @Test
    void keysWithTheSameHashTagMapToTheSameSlot() {
        assertThat(cluster.keySlot("a{x}")).isEqualTo(cluster.keySlot("b{x}")).isEqualTo(cluster.keySlot("x"));
        assertThat(cluster.keySlot("foo")).isEqualTo(12182);
    }

    @Test
    void theMasterForASlotAcceptsWritesForItAndOtherMastersRedirect() {
        int slot = cluster.keySlot("order:{42}");
        RedisServer owner = cluster.masterForSlot(slot);

        assertThat(owner.command("SET", "order:{42}", "paid")).isEqualTo("OK");
        RedisServer other = cluster.masters().stream().filter(m -> m != owner).findFirst().orElseThrow();
        assertThatThrownBy(() -> other.command("GET", "order:{42}"))
                .isInstanceOfSatisfying(RedisReplyException.class, e -> assertThat(e.code()).isEqualTo("MOVED"))
                .hasMessageContaining(Integer.toString(owner.port()));
    }

    @Test
    void failoverPromotesAReplicaAndDemotesItsMaster() {
        RedisServer replica = cluster.replicas().get(0);
        String oldMasterPort = replica.info("replication").get("master_port");

        cluster.failover(replica);

        assertThat(replica.role()).isEqualTo("master");
        assertThat(cluster.masters()).hasSize(3).contains(replica);
        assertThat(cluster.replicas()).hasSize(3).doesNotContain(replica);
        RedisServer oldMaster = cluster.nodes().stream()
                .filter(n -> Integer.toString(n.port()).equals(oldMasterPort)).findFirst().orElseThrow();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(oldMaster.info("replication"))
                        .containsEntry("role", "slave")
                        .containsEntry("master_port", Integer.toString(replica.port()))
                        .containsEntry("master_link_status", "up"));
    }

    @Test
    void aKilledMasterRestartedAfterItsReplicaTookOverRejoinsAsAReplicaOnceConverged() {
        RedisServer victim = cluster.masters().get(0);
        victim.kill();
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> cluster.masters().size() == 3);
        victim.restart();

        cluster.awaitConverged();

        assertThat(victim.info("replication")).containsEntry("role", "slave").containsEntry("master_link_status", "up");
        assertThat(cluster.masters()).hasSize(3).doesNotContain(victim);
        for (RedisServer node : cluster.nodes()) {
            assertThat(RedisServer.parseInfo((String) node.command("CLUSTER", "INFO"))).containsEntry("cluster_state", "ok");
        }
    }
}
