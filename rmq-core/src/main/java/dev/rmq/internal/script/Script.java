package dev.rmq.internal.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * rmq's Lua scripts, one per file. A script of one slot is assembled by {@link ScriptSource} from lib.lua, a
 * prologue generated from its header's ARGV block, its own file and replay.lua; a script of a whole topic (on a key
 * of its own, such as the rate-limit bucket) from the prologue and its file alone. Each is loaded once, as a Redis
 * Function library where the server has Functions (Redis 7 and later), else into the script cache, and run by
 * FCALL or EVALSHA (see {@link ScriptRunner}). Its SHA-1 is computed here, so that it can be run by EVALSHA
 * without a round trip to load it first. The library and function are named after the library's code
 * ({@link #functionName}), so that clients of two versions of rmq can share a Redis without replacing each other's
 * functions.
 * The Java side of each script's call is one {@link ScriptCall} type.
 */
public enum Script {
    SEND("send.lua", true, true),
    SEND_CONTROLLED("send_controlled.lua", true, true),
    PREPARE("prepare.lua"),
    ACK("ack.lua"),
    EXTEND("extend.lua"),
    PROGRESS("progress.lua"),
    GET("get.lua"),
    CANCEL("cancel.lua"),
    RESCHEDULE("reschedule.lua"),
    FENCE_TAKE("fence_take.lua"),
    FENCE_GIVE("fence_give.lua"),
    DEAD_LIST("dead_list.lua"),
    DEAD_REQUEUE("dead_requeue.lua"),
    DEAD_REQUEUE_ALL("dead_requeue_all.lua"),
    DEAD_DELETE("dead_delete.lua"),
    DEAD_PURGE("dead_purge.lua"),
    CLEAR("clear.lua"),
    PUTBACK("putback.lua"),
    COUNTS("counts.lua"),
    PEEK("peek.lua"),
    RESTORE("restore.lua", true, true),
    SCHEDULE_TICK("schedule_tick.lua", true, true),
    SCHEDULE_STATE("schedule_state.lua"),
    RATE("rate.lua", false, false);

    /** The library every script is built on; its header declares the KEYS and the ARGV groups. */
    public static final String LIBRARY = "lib.lua";

    private final String file;
    private final ScriptHeader header;
    private final ScriptSource source;
    private final String sha;
    private final boolean ofSlot;
    private final String functionName;
    private final String functionCode;

    Script(String file) {
        this(file, true, false);
    }

    /**
     * @param ofSlot          whether the script runs on a slot's keys, with lib.lua, or on a topic's key of its own
     * @param refusedWhenFull whether Redis refuses its calls while its memory is full: the scripts that bring new
     *                        messages in, not those that take, end or move what is there
     */
    Script(String file, boolean ofSlot, boolean refusedWhenFull) {
        this.file = file;
        this.ofSlot = ofSlot;

        String body = read(file);
        this.header = ScriptHeader.parse(file, body, Library.HEADER.groups());
        this.source = ofSlot ? ScriptSource.assemble(file, body, header, Library.PARTS, read("replay.lua"),
                Library.HEADER.keys()) : ScriptSource.assemble(file, body, header);
        this.sha = sha1(source.text());
        // named after the library's own code, its flags included, so that a library differing in anything is
        // another library
        this.functionName = "rmq_" + file.substring(0, file.length() - ".lua".length()) + "_"
                + sha1(source.functionCode("", refusedWhenFull)).substring(0, 16);
        this.functionCode = source.functionCode(functionName, refusedWhenFull);
    }

    /** Whether the script runs on the keys of one slot (lib.lua's KEYS), rather than a topic key of its own. */
    public boolean ofSlot() {
        return ofSlot;
    }

    public String file() {
        return file;
    }

    /** What the script's header declares: its ARGV layout and what it returns. */
    public ScriptHeader header() {
        return header;
    }

    /**
     * The slot's keys the script receives: indexes into lib.lua's KEYS (and {@code SlotKeys.NAMES}), in order. Read
     * only: the array is the script's own.
     */
    public int[] keys() {
        return source.keys();
    }

    /** The source Redis runs. */
    public String source() {
        return source.text();
    }

    public String sha() {
        return sha;
    }

    /**
     * The name of the script's Redis Function, which is also its library's: {@code rmq_<file>_<start of the
     * SHA-1 of the library's code>}, e.g. {@code rmq_send_0123456789abcdef}.
     */
    public String functionName() {
        return functionName;
    }

    /** The library's code, to load after Redis's {@code #!lua name=}{@link #functionName()} line. */
    public String functionCode() {
        return functionCode;
    }

    /** A Redis error message with the script's line numbers told as the file and line they came from. */
    String relocate(String redisMessage) {
        return source.relocate(redisMessage);
    }

    /** lib.lua's header: the KEYS every script receives, and the ARGV groups. */
    public static ScriptHeader libraryHeader() {
        return Library.HEADER;
    }

    /** lib.lua, read once before any script. */
    private static final class Library {
        static final String SOURCE = read(LIBRARY);
        static final ScriptHeader HEADER = ScriptHeader.parse(LIBRARY, SOURCE, Map.of());
        static final LibraryParts PARTS = LibraryParts.parse(SOURCE);

        static {
            if (HEADER.keys().isEmpty() || HEADER.groups().isEmpty()) {
                throw new IllegalStateException("lib.lua must declare its KEYS and ARGV groups, found "
                        + HEADER.keys() + " and " + HEADER.groups().keySet());
            }
        }

        private Library() {
        }
    }

    static String read(String file) {
        try (InputStream in = Script.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + file + " is missing from the rmq-core jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Lua script " + file, e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by the Java platform", e);
        }
    }
}
