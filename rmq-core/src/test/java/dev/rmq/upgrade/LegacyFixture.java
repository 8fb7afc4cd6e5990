package dev.rmq.upgrade;

import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * Writes into Redis, key by key and byte for byte, what an earlier version of rmq left there, as read back into a
 * text file of the test's resources (its header says what it holds and in what format).
 */
final class LegacyFixture {

    private LegacyFixture() {
    }

    /** Writes every key of the resource {@code name}; returns the key names, as they were written. */
    static List<String> load(RedissonClient redisson, String name) throws IOException {
        List<String> names = new ArrayList<>();
        try (InputStream in = Objects.requireNonNull(LegacyFixture.class.getResourceAsStream(name), name);
             BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String key = null;
            String type = null;
            long pttl = -1;
            List<Object> values = new ArrayList<>();
            for (String line = lines.readLine(); ; line = lines.readLine()) {
                if (line == null || line.startsWith("key ")) {
                    if (key != null) {
                        write(redisson, key, type, pttl, values);
                        names.add(key);
                    }
                    if (line == null) {
                        return names;
                    }
                    String[] head = line.split(" ");
                    key = new String(decode(head[1]), StandardCharsets.UTF_8);
                    type = head[2];
                    pttl = Long.parseLong(head[3]);
                    values = new ArrayList<>();
                } else if (!line.startsWith("#")) {
                    String[] entry = line.split(" ");
                    switch (entry[0]) {
                        // ZADD takes the score first
                        case "z" -> {
                            values.add(entry[2].getBytes(StandardCharsets.UTF_8));
                            values.add(decode(entry[1]));
                        }
                        case "h" -> {
                            values.add(decode(entry[1]));
                            values.add(decode(entry[2]));
                        }
                        case "s" -> values.add(decode(entry[1]));
                        default -> throw new IllegalStateException("unknown fixture line: " + line);
                    }
                }
            }
        }
    }

    private static void write(RedissonClient redisson, String key, String type, long pttl, List<Object> values) {
        String command = switch (type) {
            case "zset" -> "ZADD";
            case "hash" -> "HSET";
            case "string" -> "SET";
            default -> throw new IllegalStateException("the fixture holds a key of type " + type + ": " + key);
        };
        redisson.getScript(ByteArrayCodec.INSTANCE).eval(key, RScript.Mode.READ_WRITE,
                "redis.call(ARGV[1], KEYS[1], unpack(ARGV, 3)) if tonumber(ARGV[2]) > 0 then"
                        + " redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0",
                RScript.ReturnType.LONG, List.of(key), concat(command, pttl, values));
    }

    private static Object[] concat(String command, long pttl, List<Object> values) {
        List<Object> all = new ArrayList<>();
        all.add(command.getBytes(StandardCharsets.UTF_8));
        all.add(Long.toString(pttl).getBytes(StandardCharsets.UTF_8));
        all.addAll(values);
        return all.toArray();
    }

    private static byte[] decode(String base64) {
        return Base64.getDecoder().decode(base64);
    }
}
