package dev.rmq.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** The {@code --name value} arguments the harness passes to its child JVMs, and their stdin control channel. */
final class ChildArgs {

    private final Map<String, String> values = new HashMap<>();

    private ChildArgs(String[] args) {
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + Arrays.toString(args));
            }
            values.put(args[i].substring(2), args[i + 1]);
        }
    }

    static ChildArgs parse(String[] args) {
        return new ChildArgs(args);
    }

    String get(String name) {
        String value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing --" + name);
        }
        return value;
    }

    String getOrDefault(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    long getLong(String name) {
        return Long.parseLong(get(name));
    }

    int getInt(String name) {
        return Integer.parseInt(get(name));
    }

    double getDouble(String name) {
        return Double.parseDouble(get(name));
    }

    Path path(String name) {
        return Path.of(get(name));
    }

    /**
     * The Redis deployments of the run: {@code --standalone} and {@code --cluster} each carry a comma-separated
     * list of node addresses, or {@code -} when the run does not use that deployment.
     */
    Map<Deployment, List<String>> redis() {
        Map<Deployment, List<String>> redis = new EnumMap<>(Deployment.class);
        for (Deployment deployment : Deployment.values()) {
            String addresses = get(deployment.cliName());
            if (!addresses.equals("-")) {
                redis.put(deployment, List.of(addresses.split(",")));
            }
        }
        if (redis.isEmpty()) {
            throw new IllegalArgumentException("no Redis deployment given");
        }
        return redis;
    }

    /** The arguments that give a child the deployments of the run, as {@link #redis()} reads them. */
    static List<String> redisArgs(Map<Deployment, List<String>> redis) {
        List<String> args = new java.util.ArrayList<>();
        for (Deployment deployment : Deployment.values()) {
            List<String> addresses = redis.get(deployment);
            args.add("--" + deployment.cliName());
            args.add(addresses == null ? "-" : String.join(",", addresses));
        }
        return args;
    }

    /**
     * Reads commands from stdin on a daemon thread. End of input (the harness died) counts as {@code EXIT}, so
     * a child never outlives its harness for long.
     */
    static void readCommands(Consumer<String> handler) {
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (!line.isBlank()) {
                        handler.accept(line.trim());
                    }
                }
            } catch (IOException e) {
                // treated as end of input
            }
            handler.accept("EXIT");
        }, "harness-control");
        reader.setDaemon(true);
        reader.start();
    }

    /** A line for the harness on stdout, which is the child's reply channel. */
    static void reply(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
