package dev.rmq.benchmarks;

import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Locale;

/** The progress lines on stdout, each stamped with the local time, flushed at once so that a slow case shows. */
final class Log {

    private Log() {
    }

    static void info(String format, @Nullable Object... args) {
        System.out.printf(Locale.ROOT, "[%tT] " + format + "%n", prepend(Instant.now().atZone(ZoneId.systemDefault()), args));
        System.out.flush();
    }

    private static Object[] prepend(Object first, Object[] rest) {
        Object[] all = new Object[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }
}
