package dev.rmq.journal.jdbc;

import dev.rmq.journal.JournaledSend;
import dev.rmq.journal.MessageJournal;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.Map;

/** How rmq's values go into the journal's columns and come out of them, for the writer, the restore and the history. */
final class Columns {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private Columns() {
    }

    /** An instant as epoch milliseconds, or SQL NULL. */
    static void setMillis(PreparedStatement statement, int index, @Nullable Instant value) throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.BIGINT);
        } else {
            statement.setLong(index, value.toEpochMilli());
        }
    }

    /**
     * The send's id, which its deliveries name; null for a send without one (a client that gives none), or with one
     * longer than the column, which no rmq client writes.
     */
    static @Nullable String sendId(JournaledSend send) {
        String id = send.headers().get(MessageJournal.SEND_ID_HEADER);
        return id == null || id.length() > 32 ? null : id;
    }

    /** Headers as the {@code headers} column's JSON. */
    static String headers(Map<String, String> headers) {
        return headers.isEmpty() ? "{}" : JSON.writeValueAsString(headers);
    }

    /** The {@code headers} column's JSON, read back. */
    @SuppressWarnings("unchecked")
    static Map<String, String> headers(String json) {
        return JSON.readValue(json, Map.class);
    }

    /** The topic type of a {@code type} column's code. */
    static TopicType typeOf(String code) {
        for (TopicType type : TopicType.values()) {
            if (type.scriptCode().equals(code)) {
                return type;
            }
        }
        throw new IllegalArgumentException("unknown topic type code \"" + code + "\" in the journal");
    }
}
