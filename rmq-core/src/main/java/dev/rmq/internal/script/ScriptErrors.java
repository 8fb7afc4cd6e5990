package dev.rmq.internal.script;

import dev.rmq.exceptions.RmqException;
import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.internal.redis.RedisFailures;
import dev.rmq.internal.redis.SlotFencedException;
import org.jspecify.annotations.Nullable;
import org.redisson.client.RedisOutOfMemoryException;


/**
 * Turns what a script call failed with into what rmq throws: the {@code RMQ_} codes that scripts return
 * become the matching Java exception, a Redis that does not answer becomes {@link RmqUnavailableException},
 * and a Lua error names the script's file and line.
 */
final class ScriptErrors {

    private ScriptErrors() {
    }

    /** @param where the hash tag or key the script ran on, for the message */
    static Throwable translate(Throwable error, Script script, String where) {
        Throwable cause = RedisFailures.unwrap(error);
        String message = cause.getMessage() == null ? "" : cause.getMessage();
        Throwable unreachable = RedisFailures.unreachableCause(cause);
        if (unreachable != null) {
            return new RmqUnavailableException("Redis did not answer " + script + " on " + where + ": "
                    + unreachable.getClass().getSimpleName() + ": " + unreachable.getMessage(), cause);
        }
        if (message.startsWith("OOM ") || cause instanceof RedisOutOfMemoryException) {
            return new RmqException("Redis refused " + script.file() + " on " + where + ": its memory is full (used"
                    + " memory above maxmemory), so it takes nothing new; nothing was written. Acknowledgements"
                    + " still run, and free memory as consumers work through what waits", cause);
        }
        int at = message.indexOf("RMQ_");
        if (at < 0) {
            if (message.contains("user_script:") || message.contains("user_function:")) {
                return new RmqException("script " + script.file() + " failed on " + where + ": "
                        + script.relocate(message), cause);
            }
            return cause instanceof RuntimeException ? cause : new RmqException(message, cause);
        }
        int space = message.indexOf(' ', at);
        String code = space < 0 ? message.substring(at) : message.substring(at, space);
        String text = space < 0 ? code : message.substring(space + 1);
        int redissonSuffix = text.indexOf(". channel:");
        if (redissonSuffix >= 0) {
            text = text.substring(0, redissonSuffix);
        }
        return switch (code) {
            case "RMQ_FENCED" -> new SlotFencedException(text, cause);
            // bytes that are not an envelope the scripts read: a restore's input, never a send of this version's
            case "RMQ_ENVELOPE" -> new IllegalArgumentException(text, cause);
            case "RMQ_ARGV" -> new IllegalStateException("the Java and Lua sides of " + script.file()
                    + " disagree on its arguments: " + text, cause);
            // a call of several slots whose shares do not fit its messages or its keys: nothing was written
            case "RMQ_SLOTS" -> new IllegalStateException("the Java and Lua sides of " + script.file()
                    + " disagree on a call's slots: " + text, cause);
            default -> new RmqException(code + " " + text, cause);
        };
    }

    /**
     * What Redis answered, without what Redisson appends to it (the channel, and the whole command with its
     * arguments: for a FUNCTION LOAD, a library's source).
     */
    static String redisAnswer(Throwable error) {
        String message = String.valueOf(RedisFailures.unwrap(error).getMessage());
        int suffix = message.indexOf(". channel:");
        return suffix >= 0 ? message.substring(0, suffix) : message;
    }

    /** Whether a script reported an {@code RMQ_} error code itself, rather than Redis failing to run it. */
    static boolean isScriptsOwnError(@Nullable Throwable error) {
        if (error == null || RedisFailures.unreachableCause(error) != null) {
            return false;
        }
        String message = RedisFailures.unwrap(error).getMessage();
        return message != null && message.contains("RMQ_");
    }

    /**
     * Whether Redis answered that it does not know the script called: NOSCRIPT to EVALSHA, or an unknown function
     * to FCALL. A restart without persistence, a flush, or a failover to a replica never sent it: load and repeat.
     */
    static boolean isNotLoaded(Throwable error) {
        String message = RedisFailures.unwrap(error).getMessage();
        return message != null && (message.contains("NOSCRIPT") || message.contains("Function not found"));
    }

    /**
     * Whether a FUNCTION LOAD failed because this Redis cannot take functions from this client: a Redis before 7
     * does not know the command, and an ACL may forbid it. Not a failure to reach Redis, which says nothing of it.
     */
    static boolean isFunctionsRefused(Throwable error) {
        if (RedisFailures.unreachableCause(error) != null) {
            return false;
        }
        String message = RedisFailures.unwrap(error).getMessage();
        return message != null && (message.contains("unknown command") || message.contains("NOPERM")
                || message.contains("unknown subcommand"));
    }


}
