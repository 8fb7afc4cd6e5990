package dev.rmq.topic;

/**
 * The three kinds of message. The type decides the score of a waiting message, how a second send
 * with the same key merges, and the order of consumption.
 */
public enum TopicType {

    /** Score: Redis now + time range. A merge keeps the first due time. Consumed when due, earliest first. */
    RANGE_MERGE("R"),

    /** Score: the priority (above 16). A merge takes the latest priority. Consumed highest first. */
    PRIORITY("P"),

    /** Score: the fixed time, in the future. A merge takes the latest time. Consumed when due, earliest first. */
    FIXED_TIME("F");

    private final String scriptCode;

    TopicType(String scriptCode) {
        this.scriptCode = scriptCode;
    }

    /** The one-letter code the Lua scripts use for this type. */
    public String scriptCode() {
        return scriptCode;
    }

    /** Whether messages of this type wait for a due time (as opposed to being ordered by priority). */
    public boolean isTimed() {
        return this != PRIORITY;
    }
}
