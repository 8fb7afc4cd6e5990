package dev.rmq.journal.jdbc;

import org.jspecify.annotations.Nullable;

/**
 * Which journaled messages to put back.
 *
 * @param topic   one topic, or null for every topic of the client
 * @param key     one message key (with a topic), or null for all
 * @param expired whether messages whose time to live ran out are put back too (without a time to live); when
 *                false they are marked expired in the journal instead
 * @param dryRun  whether the restore only says what it would do: it writes nothing to Redis or to the journal, and
 *                its report's counts are what a restore would put back, find present, and find expired now
 */
public record RestoreRequest(@Nullable String topic, @Nullable String key, boolean expired, boolean dryRun) {

    public RestoreRequest(@Nullable String topic, @Nullable String key, boolean expired) {
        this(topic, key, expired, false);
    }

    public RestoreRequest {
        if (key != null && topic == null) {
            throw new IllegalArgumentException("a restore by key needs its topic; key was \"" + key + "\"");
        }
        if (key != null && key.isEmpty()) {
            throw new IllegalArgumentException("key must not be empty; leave it null to restore every key");
        }
    }

    /** Every unfinished message of every topic, expired ones left out. */
    public static RestoreRequest all() {
        return new RestoreRequest(null, null, false);
    }

    /** This request as a dry run: what it would do, with nothing written. */
    public RestoreRequest asDryRun() {
        return new RestoreRequest(topic, key, expired, true);
    }
}
