package dev.rmq.badinput;

import dev.rmq.embedded.RedisServer;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Every key of a Redis with its DUMP, to show that a refused operation changed nothing. */
final class RedisSnapshot {

    private RedisSnapshot() {
    }

    @SuppressWarnings("unchecked")
    static Map<String, String> of(RedisServer redis) {
        Map<String, String> dump = new TreeMap<>();
        for (Object key : (List<Object>) redis.command("KEYS", "*")) {
            String name = (String) key;
            if (name.startsWith("rmq:wake{") || name.startsWith("rmq:call{")) {
                continue; // expiring hints, not data
            }
            dump.put(name, String.valueOf(redis.command("DUMP", name)));
        }
        return dump;
    }
}
