package dev.rmq.internal.coordination;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/** The plan znode's data: one {@code slot=worker} per line, readable with any ZooKeeper shell. */
final class PlanCodec {

    private PlanCodec() {
    }

    static byte[] encode(Map<Integer, String> plan) {
        StringBuilder text = new StringBuilder();
        new TreeMap<>(plan).forEach((slot, worker) -> text.append(slot).append('=').append(worker).append('\n'));
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    static Map<Integer, String> decode(byte[] data) {
        Map<Integer, String> plan = new TreeMap<>();
        if (data == null) {
            return plan;
        }
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                plan.put(Integer.parseInt(line.substring(0, eq)), line.substring(eq + 1));
            }
        }
        return plan;
    }
}
