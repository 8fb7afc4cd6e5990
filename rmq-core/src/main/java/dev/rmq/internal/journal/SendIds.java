package dev.rmq.internal.journal;

import dev.rmq.journal.MessageJournal;

import java.util.concurrent.ThreadLocalRandom;

/** The values of {@link MessageJournal#SEND_ID_HEADER}: 64 random bits, so that two sends of one key never share one. */
public final class SendIds {

    private SendIds() {
    }

    /** A new send id. */
    public static String next() {
        return Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), Character.MAX_RADIX);
    }
}
