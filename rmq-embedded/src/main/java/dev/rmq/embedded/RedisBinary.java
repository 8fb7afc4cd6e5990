package dev.rmq.embedded;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code redis-server} executable the tests run.
 *
 * <p>Resolution order: system property {@value #BINARY_PROPERTY} (an explicit path) wins; otherwise
 * {@code redis-server} from {@code PATH}; otherwise, or when forced with {@code -Drmq.test.redis=embedded}
 * or {@code RMQ_TEST_REDIS=embedded}, the binary shipped in the {@code com.github.codemonstur:embedded-redis}
 * artifact (Redis 6.2).
 *
 * @param path   absolute path of an executable {@code redis-server}
 * @param source where it came from: {@link #SOURCE_PATH}, {@link #SOURCE_EMBEDDED} or {@link #SOURCE_EXPLICIT}
 */
public record RedisBinary(Path path, String source) {

    public static final String MODE_PROPERTY = "rmq.test.redis";
    public static final String MODE_ENV = "RMQ_TEST_REDIS";
    public static final String BINARY_PROPERTY = "rmq.test.redis.binary";

    public static final String SOURCE_PATH = "PATH";
    public static final String SOURCE_EMBEDDED = "embedded-redis 6.2 artifact";
    public static final String SOURCE_EXPLICIT = "explicit";

    private static final Logger log = LoggerFactory.getLogger(RedisBinary.class);
    private static final Pattern VERSION = Pattern.compile("v=(\\d+\\.\\d+\\.\\d+)");

    // Keyed by the request (mode + explicit path), not a single slot, so a test that flips the
    // switch gets the binary it asked for instead of whatever the first caller resolved.
    private static final Map<String, RedisBinary> RESOLVED = new ConcurrentHashMap<>();
    private static final Map<Path, String> VERSIONS = new ConcurrentHashMap<>();

    public RedisBinary {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(source, "source");
    }

    /** Resolves the binary for the current switches; cached per switch combination. */
    public static RedisBinary resolve() {
        String explicit = System.getProperty(BINARY_PROPERTY, "").trim();
        boolean embedded = embeddedForced();
        String key = !explicit.isEmpty() ? "explicit:" + explicit : embedded ? "embedded" : "path";
        return RESOLVED.computeIfAbsent(key, k -> {
            RedisBinary binary = !explicit.isEmpty() ? explicit(explicit)
                    : embedded ? embedded()
                    : fromPath().orElseGet(RedisBinary::embedded);
            log.info("Tests use redis-server {} from {}: {}", binary.version(), binary.source(), binary.path());
            return binary;
        });
    }

    /** The {@code x.y.z} version reported by {@code redis-server --version}, e.g. {@code 7.0.15}. */
    public String version() {
        return VERSIONS.computeIfAbsent(path, RedisBinary::readVersion);
    }

    /** Major version as a number, for choosing commands that older servers lack. */
    public int majorVersion() {
        return Integer.parseInt(version().substring(0, version().indexOf('.')));
    }

    private static boolean embeddedForced() {
        String property = System.getProperty(MODE_PROPERTY, "");
        String env = Objects.requireNonNullElse(System.getenv(MODE_ENV), "");
        checkMode(MODE_PROPERTY, property);
        checkMode(MODE_ENV, env);
        // Either switch can force it: the build passes rmq.test.redis=path by default, which must not
        // cancel RMQ_TEST_REDIS=embedded from the environment.
        return property.trim().equalsIgnoreCase("embedded") || env.trim().equalsIgnoreCase("embedded");
    }

    private static void checkMode(String name, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (!v.isEmpty() && !v.equals("path") && !v.equals("embedded")) {
            throw new IllegalArgumentException(name + "=" + value + " is not supported; use 'path' or 'embedded'");
        }
    }

    private static RedisBinary explicit(String location) {
        Path path = Path.of(location).toAbsolutePath();
        if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
            throw new IllegalStateException(BINARY_PROPERTY + " points at " + path + ", which is not an executable file");
        }
        return new RedisBinary(path, SOURCE_EXPLICIT);
    }

    private static Optional<RedisBinary> fromPath() {
        String pathVariable = Objects.requireNonNullElse(System.getenv("PATH"), "");
        for (String entry : pathVariable.split(Pattern.quote(File.pathSeparator))) {
            if (entry.isBlank()) {
                continue;
            }
            Path candidate = Path.of(entry, "redis-server");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(new RedisBinary(candidate.toAbsolutePath(), SOURCE_PATH));
            }
        }
        return Optional.empty();
    }

    private static RedisBinary embedded() {
        String resource = embeddedResourceName(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
        Path target = Path.of(System.getProperty("java.io.tmpdir"), "rmq-redis-" + resource, "redis-server");
        try {
            extract(resource, target);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not extract " + resource + " from the embedded-redis artifact to " + target, e);
        }
        return new RedisBinary(target, SOURCE_EMBEDDED);
    }

    static String embeddedResourceName(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        boolean amd64 = arch.equals("amd64") || arch.equals("x86_64");
        boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
        if (os.contains("linux") && amd64) {
            return "redis-server-6.2.6-v5-linux-amd64";
        }
        if (os.contains("linux") && arm64) {
            return "redis-server-6.2.7-linux-arm64";
        }
        if ((os.contains("mac") || os.contains("darwin")) && amd64) {
            return "redis-server-6.2.6-v5-darwin-amd64";
        }
        if ((os.contains("mac") || os.contains("darwin")) && arm64) {
            return "redis-server-6.2.6-v5-darwin-arm64";
        }
        throw new IllegalStateException("The embedded-redis artifact has no usable redis-server for os.name='" + osName
                + "', os.arch='" + osArch + "'; install redis-server on PATH or set -D" + BINARY_PROPERTY + "=/path/to/redis-server");
    }

    // Several JVMs (parallel Maven forks) may extract at once: each writes its own temp file and
    // moves it into place atomically, so nobody ever executes a half-written binary.
    private static void extract(String resource, Path target) throws IOException {
        if (Files.isRegularFile(target) && Files.isExecutable(target)) {
            return;
        }
        Files.createDirectories(target.getParent());
        Path temp = Files.createTempFile(target.getParent(), "redis-server", ".part");
        try {
            try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("Resource " + resource
                            + " not found on the classpath; is com.github.codemonstur:embedded-redis a dependency?");
                }
                Files.copy(in, temp, StandardCopyOption.REPLACE_EXISTING);
            }
            if (!temp.toFile().setExecutable(true, false)) {
                throw new IOException("Could not make " + temp + " executable");
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static String readVersion(Path binary) {
        try {
            Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            byte[] output;
            try (InputStream in = process.getInputStream()) {
                output = in.readAllBytes();
            }
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(binary + " --version did not finish within 10 s");
            }
            String text = new String(output, StandardCharsets.UTF_8).trim();
            Matcher m = VERSION.matcher(text);
            if (!m.find()) {
                throw new IllegalStateException("Cannot parse the version from '" + binary + " --version': " + text);
            }
            return m.group(1);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not run " + binary + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + binary + " --version", e);
        }
    }
}
