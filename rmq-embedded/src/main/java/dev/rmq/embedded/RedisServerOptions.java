package dev.rmq.embedded;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * How to start a server. Immutable; each {@code with*} returns a copy.
 *
 * <pre>{@code RedisServerOptions.defaults().withArgs("--appendonly", "yes", "--appendfsync", "always")}</pre>
 */
public final class RedisServerOptions {

    // The helper owns these; letting callers change them would break port bookkeeping,
    // cleanup, or (daemonize) the process handle itself.
    private static final Set<String> RESERVED = Set.of("--port", "--dir", "--daemonize", "--logfile");

    private final List<String> args;
    private final @Nullable Path dataDir;
    private final Duration startupTimeout;
    private final boolean killedAtExit;
    private final @Nullable Path configFile;

    private RedisServerOptions(List<String> args, @Nullable Path dataDir, Duration startupTimeout, boolean killedAtExit,
                               @Nullable Path configFile) {
        this.args = List.copyOf(args);
        this.dataDir = dataDir;
        this.startupTimeout = startupTimeout;
        this.killedAtExit = killedAtExit;
        this.configFile = configFile;
    }

    /** No persistence, fresh temp directory, 10 s to answer PING, killed when the JVM exits. */
    public static RedisServerOptions defaults() {
        return new RedisServerOptions(List.of(), null, Duration.ofSeconds(10), true, null);
    }

    /**
     * Extra {@code redis-server} arguments, appended after the defaults so they override them
     * ({@code "--appendonly", "yes"} wins over the default {@code --appendonly no}).
     */
    public RedisServerOptions withArgs(String... extra) {
        for (String arg : extra) {
            if (RESERVED.contains(Objects.requireNonNull(arg, "arg").toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException(arg + " is managed by RedisServer and cannot be overridden"
                        + (arg.equalsIgnoreCase("--dir") ? "; use withDataDir(...)" : ""));
            }
        }
        List<String> all = new ArrayList<>(args);
        all.addAll(Arrays.asList(extra));
        return new RedisServerOptions(all, dataDir, startupTimeout, killedAtExit, configFile);
    }

    /** Use this directory instead of a fresh temp one; it is created if needed and never deleted. */
    public RedisServerOptions withDataDir(Path dir) {
        return new RedisServerOptions(args, Objects.requireNonNull(dir, "dir"), startupTimeout, killedAtExit, configFile);
    }

    public RedisServerOptions withStartupTimeout(Duration timeout) {
        return new RedisServerOptions(args, dataDir, Objects.requireNonNull(timeout, "timeout"), killedAtExit, configFile);
    }

    /**
     * Leaves stopping the server to its owner alone: no JVM shutdown hook kills it, and where {@code setsid} exists
     * it runs in a session of its own, so a terminal's Ctrl-C, which signals the application's whole process group,
     * does not stop it either. For an application whose own graceful shutdown must still reach Redis.
     */
    public RedisServerOptions stoppedOnlyByClose() {
        return new RedisServerOptions(args, dataDir, startupTimeout, false, configFile);
    }

    /**
     * A configuration file, given to redis-server before every other argument: a Sentinel needs one, which it
     * rewrites as it learns the deployment. The command-line arguments still override what it says.
     */
    public RedisServerOptions withConfigFile(Path file) {
        return new RedisServerOptions(args, dataDir, startupTimeout, killedAtExit, Objects.requireNonNull(file, "file"));
    }

    /** Null when there is none. */
    public @Nullable Path configFile() {
        return configFile;
    }

    public boolean killedAtExit() {
        return killedAtExit;
    }

    public List<String> args() {
        return args;
    }

    /** Null means a fresh temp directory per server. */
    public @Nullable Path dataDir() {
        return dataDir;
    }

    public Duration startupTimeout() {
        return startupTimeout;
    }

    boolean clusterEnabled() {
        int i = args.lastIndexOf("--cluster-enabled");
        return i >= 0 && i + 1 < args.size() && args.get(i + 1).equalsIgnoreCase("yes");
    }
}
