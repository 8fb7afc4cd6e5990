package dev.rmq.internal.pull;

import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * A notice, on a topic's wake-up channel, that a puller ended or extended by its reference a delivery that another
 * puller handed out: the one that holds it then frees its slot at once, or moves its lease, instead of waiting for
 * the old lease to run out. It starts with a letter, so that consumers reading slot indexes on the channel pass
 * over it: {@code s <slot> <lease> <key>} for an ending, {@code e <slot> <lease> <new lease> <lease ms> <key>} for
 * an extension. The key comes last, so that it may hold spaces.
 *
 * @param slot     the slot
 * @param key      the message key
 * @param lease    the lease deadline the delivery held (µs), which names it
 * @param newLease the new deadline after an extension; 0 for an ending
 * @param leaseMs  the extension's length, for the holder's own clock; 0 for an ending
 */
record SettledElsewhere(int slot, String key, long lease, long newLease, long leaseMs) {

    static SettledElsewhere ended(int slot, String key, long lease) {
        return new SettledElsewhere(slot, key, lease, 0, 0);
    }

    static SettledElsewhere extended(int slot, String key, long lease, long newLease, Duration extension) {
        return new SettledElsewhere(slot, key, lease, newLease, extension.toMillis());
    }

    boolean isEnding() {
        return newLease == 0;
    }

    String encode() {
        return isEnding() ? "s " + slot + " " + lease + " " + key
                : "e " + slot + " " + lease + " " + newLease + " " + leaseMs + " " + key;
    }

    /** The notice in a channel message, or null when the message is not one (a slot index, another version's). */
    static @Nullable SettledElsewhere parse(String text) {
        if (text == null || text.length() < 2 || text.charAt(1) != ' ' || (text.charAt(0) != 's' && text.charAt(0) != 'e')) {
            return null;
        }
        boolean ending = text.charAt(0) == 's';
        String[] parts = text.split(" ", ending ? 4 : 6);
        try {
            if (ending && parts.length == 4) {
                return ended(Integer.parseInt(parts[1]), parts[3], Long.parseLong(parts[2]));
            }
            if (!ending && parts.length == 6) {
                return new SettledElsewhere(Integer.parseInt(parts[1]), parts[5], Long.parseLong(parts[2]),
                        Long.parseLong(parts[3]), Long.parseLong(parts[4]));
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return null;
    }
}
