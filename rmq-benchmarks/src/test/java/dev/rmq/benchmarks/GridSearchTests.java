package dev.rmq.benchmarks;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class GridSearchTests {

    private final Report report = new Report();

    private final GridSearch<String> search = new GridSearch<>(report, "case.candidates", "  case %-10s %10.0f msgs/s",
            (node, setting) -> node.put("setting", setting));

    @Test
    void returnsTheFastestCandidateWithItsRate() {
        Optional<GridSearch.Candidate<String>> best = search.best(List.of("a", "b", "c"),
                Map.of("a", 100.0, "b", 300.0, "c", 200.0)::get);

        assertThat(best).contains(new GridSearch.Candidate<>("b", 300.0));
    }

    @Test
    void recordsEveryCandidateTriedInTheOrderTried() {
        search.best(List.of("a", "b", "c"), Map.of("a", 100.4, "b", 300.0, "c", 200.6)::get);

        assertThat(report.root().path("case").path("candidates").toString()).isEqualTo(
                "[{\"setting\":\"a\",\"msgs_per_s\":100},{\"setting\":\"b\",\"msgs_per_s\":300},"
                        + "{\"setting\":\"c\",\"msgs_per_s\":201}]");
    }

    @Test
    void triesEveryCandidateOnceEvenAfterTheBest() {
        List<String> tried = new ArrayList<>();

        search.best(List.of("a", "b", "c"), setting -> {
            tried.add(setting);
            return setting.equals("a") ? 500 : 100;
        });

        assertThat(tried).containsExactly("a", "b", "c");
    }

    @Test
    void keepsTheEarlierOfTwoEqualRates() {
        Optional<GridSearch.Candidate<String>> best = search.best(List.of("a", "b"), setting -> 100);

        assertThat(best.map(GridSearch.Candidate::setting)).contains("a");
    }

    @Test
    void findsNothingWithoutCandidatesAndRecordsAnEmptyArray() {
        assertThat(search.best(List.of(), setting -> 100)).isEmpty();
        assertThat(report.root().path("case").path("candidates").toString()).isEqualTo("[]");
    }
}
