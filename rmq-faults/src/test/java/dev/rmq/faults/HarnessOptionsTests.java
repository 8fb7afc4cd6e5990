package dev.rmq.faults;

import dev.rmq.faults.RedisClients.RedisMode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class HarnessOptionsTests {

    @Test
    void byDefaultEveryDeploymentRunsAndEveryFaultKindApplies() {
        HarnessOptions options = HarnessOptions.parse();

        assertThat(options.redis()).isEqualTo(RedisMode.ALL);
        assertThat(options.faults()).isEqualTo(EnumSet.allOf(FaultKind.class));
        assertThat(options.durable()).isEqualTo("mix");
        assertThat(options.gapMin()).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.gapMax()).isEqualTo(Duration.ofSeconds(6));
    }

    @Test
    void aSingleDeploymentOffersOnlyTheFaultsThatHitIt() {
        assertThat(HarnessOptions.parse("--redis", "standalone").faults())
                .doesNotContain(FaultKind.FAILOVER, FaultKind.MASTER_KILL).contains(FaultKind.REDIS_RESTART);
        assertThat(HarnessOptions.parse("--redis", "cluster").faults())
                .doesNotContain(FaultKind.REDIS_RESTART).contains(FaultKind.FAILOVER, FaultKind.MASTER_KILL);
        assertThat(HarnessOptions.parse("--redis", "sentinel").faults())
                .doesNotContain(FaultKind.REDIS_RESTART, FaultKind.FAILOVER, FaultKind.NET_STALL)
                .contains(FaultKind.SENTINEL_FAILOVER, FaultKind.ZK_PARTITION);
        assertThatIllegalArgumentException().isThrownBy(() -> HarnessOptions.parse("--redis", "cluster", "--faults",
                "redis-restart")).withMessageContaining("does not apply to --redis cluster");
    }

    @Test
    void durableSendsNeedAReplica() {
        assertThat(HarnessOptions.parse("--redis", "standalone").durable()).isEqualTo("none");
        assertThat(HarnessOptions.parse("--redis", "sentinel").durable()).isEqualTo("mix");
        assertThatIllegalArgumentException().isThrownBy(() -> HarnessOptions.parse("--redis", "standalone", "--durable"))
                .withMessageContaining("needs replicas");
    }

    @Test
    void theGapBetweenFaultsIsARangeInSeconds() {
        HarnessOptions options = HarnessOptions.parse("--gap", "0.3,1");

        assertThat(options.gapMin()).isEqualTo(Duration.ofMillis(300));
        assertThat(options.gapMax()).isEqualTo(Duration.ofSeconds(1));
        assertThatIllegalArgumentException().isThrownBy(() -> HarnessOptions.parse("--gap", "3,1"));
        assertThatIllegalArgumentException().isThrownBy(() -> HarnessOptions.parse("--gap", "3"));
    }

    @Test
    void theConsumersTakeEveryListenerShapeUnlessOneIsChosen() {
        assertThat(HarnessOptions.parse().listeners()).isEqualTo("mixed");
        assertThat(HarnessOptions.parse("--listeners", "batch").commandLine()).contains("--listeners batch");
        assertThatIllegalArgumentException().isThrownBy(() -> HarnessOptions.parse("--listeners", "reactive"))
                .withMessage("--listeners must be one of single, batch, async, mixed, was reactive");

        // mixed: a consumer's topics take the three shapes in turn, and consumers start from different ones
        assertThat(java.util.stream.IntStream.range(0, 3).mapToObj(i -> ConsumerMain.shape("mixed", "c1", i)))
                .containsExactlyInAnyOrder("single", "batch", "async");
        assertThat(ConsumerMain.shape("mixed", "c1", 0)).isNotEqualTo(ConsumerMain.shape("mixed", "c2", 0));
        assertThat(ConsumerMain.shape("async", "c1", 4)).isEqualTo("async");
    }

    @Test
    void aHandlersWorkerIsReadFromItsThreadsName() {
        assertThat(ConsumerMain.workerOf("rmq-ms-1")).isEqualTo("ms-1");
        assertThat(ConsumerMain.workerOf("rmq-ms-1 faults-merge-s_3")).isEqualTo("ms-1");
    }
}
