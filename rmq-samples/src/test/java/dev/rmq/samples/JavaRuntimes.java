package dev.rmq.samples;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Finds a Java runtime of a given version or later to run the sample on: the one named by {@code RMQ_JAVA21_HOME},
 * else the newest of those installed where Linux distributions put them. The build itself runs on Java 17.
 */
final class JavaRuntimes {

    /** Where runtimes are looked for, for messages. */
    static final String WHERE = "RMQ_JAVA21_HOME, then /usr/lib/jvm";

    private JavaRuntimes() {
    }

    /** The {@code java} launcher of a runtime of {@code feature} or later, if there is one. */
    static Optional<String> atLeast(int feature) {
        String named = System.getenv("RMQ_JAVA21_HOME");
        List<Path> homes;
        if (named != null && !named.isBlank()) {
            homes = List.of(Path.of(named));
        } else {
            try (Stream<Path> installed = Files.list(Path.of("/usr/lib/jvm"))) {
                homes = installed.toList();
            } catch (IOException e) {
                return Optional.empty();
            }
        }
        return homes.stream()
                .filter(home -> Files.isExecutable(home.resolve("bin/java")))
                .filter(home -> version(home) >= feature)
                .max(Comparator.comparingInt(JavaRuntimes::version))
                .map(home -> home.resolve("bin/java").toString());
    }

    /** The feature version a JDK's {@code release} file names, 0 when it names none. */
    private static int version(Path home) {
        Properties release = new Properties();
        try (InputStream in = Files.newInputStream(home.resolve("release"))) {
            release.load(in);
        } catch (IOException e) {
            return 0;
        }
        String version = release.getProperty("JAVA_VERSION", "\"0\"").replace("\"", "");
        try {
            return Integer.parseInt(version.split("[.+-]")[0]);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
