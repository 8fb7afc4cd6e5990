package dev.rmq.faults;

import dev.rmq.faults.check.Verdict;
import dev.rmq.faults.events.HarnessEvent;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result of a run: the figures (the checker's, with the verdict) in the {@code --out} file, everything else
 * beside it in {@code <stem>.details.json}, and a summary on standard output.
 *
 * @param figures  the headline figures and the verdict
 * @param details  how the run went: its set-up, the drain, the fault log, and the checker's details
 * @param failures the broken invariants and the harness's own failures
 */
record RunReport(Map<String, Object> figures, Map<String, Object> details, List<String> failures) {

    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    /**
     * Puts the report together.
     *
     * @param run           the run's set-up and times
     * @param harnessErrors what went wrong in the harness itself (a fault not injected, a drain that timed out)
     * @param faults        the faults injected
     * @param unrecovered   the coordination after each fault that did not recover in time
     */
    static RunReport of(HarnessOptions options, Verdict verdict, Map<String, Object> run, Map<String, Object> drain,
                        List<String> harnessErrors, List<HarnessEvent.FaultInjected> faults,
                        List<Map<String, Object>> unrecovered, long runStartMicros) {
        List<String> failures = new ArrayList<>(verdict.failures());
        failures.addAll(harnessErrors);
        if (verdict.figure("sent") == 0 || verdict.figure("consumed_unique") == 0) {
            failures.add("no workload to judge: " + verdict.figure("sent") + " sent, " + verdict.figure("consumed_unique")
                    + " consumed");
        }
        if (options.duration().compareTo(FaultHarness.LONG_RUN) >= 0 && options.faults().contains(FaultKind.KILL)
                && verdict.figure("kills_mid_message") == 0) {
            failures.add("no kill hit a consumer in the middle of a message in a run of " + options.duration().toMinutes()
                    + " minutes");
        }
        String outcome = failures.isEmpty() ? "PASS" : "FAIL";

        Map<String, Object> details = new LinkedHashMap<>();
        details.put("verdict", outcome);
        details.put("failures", failures);
        details.put("run", run);
        details.put("drain", drain);
        details.putAll(verdict.details());
        List<Map<String, Object>> faultLog = new ArrayList<>();
        for (HarnessEvent.FaultInjected fault : faults.stream().sorted(Comparator.comparingInt(HarnessEvent.FaultInjected::id))
                .toList()) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("id", fault.id());
            f.put("kind", fault.kind());
            f.put("target", fault.target());
            f.put("at_s", (fault.micros() - runStartMicros) / 1_000_000.0);
            f.put("undone_after_ms", (fault.healMicros() - fault.micros()) / 1000);
            f.put("recovery_ms", fault.recoveryMicros() < 0 ? null : fault.recoveryMicros() / 1000);
            f.put("detail", fault.detail());
            faultLog.add(f);
        }
        details.put("fault_log", faultLog);
        details.put("unrecovered_faults", unrecovered);

        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("redis", options.redis().cliName());
        figures.put("seconds", run.get("seconds"));
        // what the producer was asked for beside what it sent: on a loaded machine it falls behind, and the run then
        // judges the queue at the lower rate
        figures.put("keys_per_s_asked", options.burstsPerSecond());
        Object seconds = run.get("seconds");
        if (seconds instanceof Number n && n.longValue() > 0) {
            figures.put("sent_per_s", Math.round(verdict.figure("sent") / n.doubleValue()));
        }
        figures.putAll(verdict.figures());
        figures.put("verdict", outcome);
        figures.put("failures", failures);
        return new RunReport(figures, details, failures);
    }

    /** Writes the figures to {@code out} and the details beside it, and prints the summary; the details' path. */
    Path write(Path out) throws IOException {
        Path file = out.toAbsolutePath();
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        String json = JSON.writeValueAsString(figures) + "\n";
        Files.writeString(file, json, StandardCharsets.UTF_8);
        String name = file.getFileName().toString();
        String stem = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
        Path detailsFile = file.resolveSibling(stem + ".details.json");
        Files.writeString(detailsFile, JSON.writeValueAsString(details) + "\n", StandardCharsets.UTF_8);

        System.out.print(json);
        System.out.println("details: " + detailsFile);
        System.out.println("messages by deployment " + details.get("messages_by_deployment") + ", superseded "
                + details.get("superseded") + ", dead without reason " + details.get("dead_without_reason"));
        if (failures.isEmpty()) {
            System.out.println("PASS: every invariant held");
        } else {
            System.out.println("FAIL:");
            failures.forEach(f -> System.out.println("  - " + f));
        }
        System.out.flush();
        return detailsFile;
    }
}
