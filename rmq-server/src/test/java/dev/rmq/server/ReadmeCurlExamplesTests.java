package dev.rmq.server;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.springframework.beans.factory.annotation.Value;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The curl examples of the README, run one after another against the running server, with {@code RMQ} set to its
 * base URL, as a reader would paste them: each must exit 0 and print JSON that is no problem. The examples are the
 * command lines of the fenced blocks between the README's markers.
 */
@ServerTest
class ReadmeCurlExamplesTests {

    static final String START = "<!-- server-curl-examples:start -->";
    static final String END = "<!-- server-curl-examples:end -->";

    @Value("${local.server.port}")
    int port;

    @BeforeEach
    void curlAndAServerReadyToHandOut() {
        Assumptions.assumeTrue(onPath("curl"), "curl is not on PATH, so the README's curl examples cannot be run here");
        Assumptions.assumeTrue(onPath("bash"), "bash is not on PATH, so the README's curl examples cannot be run here");
        new HttpApi(port).awaitPullerHoldsAllSlots(Set.of("price-change", "merchant-tasks", "orders-timeout"));
    }

    @TestFactory
    Stream<DynamicTest> everyCurlExampleOfTheReadmeSucceeds() throws IOException {
        List<String> commands = commands(Files.readString(Path.of("README.md"), StandardCharsets.UTF_8));
        assertThat(commands).as("curl examples between the README's markers").hasSizeGreaterThanOrEqualTo(10);
        String base = new HttpApi(port).base();
        return commands.stream().map(command -> DynamicTest.dynamicTest(command, () -> run(command, base)));
    }

    /** The command lines of the fenced blocks between the markers: neither blank nor comments. */
    static List<String> commands(String readme) {
        int start = readme.indexOf(START);
        int end = readme.indexOf(END);
        assertThat(start).as("the README's start marker").isNotNegative();
        assertThat(end).as("the README's end marker, after the start").isGreaterThan(start);
        List<String> commands = new ArrayList<>();
        boolean inFence = false;
        for (String line : readme.substring(start, end).split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("```")) {
                inFence = !inFence;
            } else if (inFence && !trimmed.isEmpty() && !trimmed.startsWith("#")) {
                assertThat(trimmed).as("a command of the examples").contains("curl ");
                commands.add(trimmed);
            }
        }
        return commands;
    }

    private static void run(String command, String base) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", command);
        builder.environment().put("RMQ", base);
        builder.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process process = builder.start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("did not finish within 90 s: " + command);
        }
        String printed = new String(output, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as("exit code of %s, which printed %s", command, printed).isZero();
        JsonNode json;
        try {
            json = HttpApi.JSON.readTree(printed);
        } catch (JacksonException e) {
            throw new AssertionError("not JSON: " + printed + " (from " + command + ")", e);
        }
        assertThat(json == null || json.isMissingNode()).as("%s printed nothing", command).isFalse();
        JsonNode type = json.path("type");
        assertThat(type.isString() ? type.stringValue() : "").as("the answer to %s: %s", command, printed)
                .doesNotStartWith(HttpApi.PROBLEMS);
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
