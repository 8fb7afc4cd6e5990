package dev.rmq.faults;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The producer's account of how far it kept its rate, as the harness reads it from the producer's last line. */
class ProducerMainTests {

    @Test
    void theReportSaysWhatEachDeploymentStartedAndWaitedInTheOrderTheProducerNamedThem() {
        Map<String, Object> report = ProducerMain.report("STOPPED 9000 3100 12 4250 standalone=2900/4200 cluster=3050/50");

        assertThat(report).containsEntry("bursts_planned", 3100L).containsEntry("bursts_skipped", 12L)
                .containsEntry("waited_for_room_ms", 4250L);
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Long>> lanes = (Map<String, Map<String, Long>>) report.get("by_deployment");
        assertThat(lanes).containsOnlyKeys("standalone", "cluster");
        assertThat(lanes.keySet()).containsExactly("standalone", "cluster");
        assertThat(lanes.get("standalone")).containsExactly(Map.entry("calls", 2900L),
                Map.entry("waited_for_room_ms", 4200L));
        assertThat(lanes.get("cluster")).containsEntry("calls", 3050L).containsEntry("waited_for_room_ms", 50L);
    }

    @Test
    void aProducerThatNeverStoppedLeavesNoReport() {
        assertThat(ProducerMain.report(null)).isEmpty();
        assertThat(ProducerMain.report("EXITED")).isEmpty();
    }
}
