package dev.rmq.journal.jdbc;

import dev.rmq.topic.Names;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The journal's settings, checked by its builder.
 *
 * @param topicModes each topic's own mode; the others take {@code defaultMode}
 */
record JournalSettings(DataSource dataSource, JournalMode defaultMode, Map<String, JournalMode> topicModes,
                       int bufferCapacity, int batchSize, WhenUnavailable whenUnavailable, Duration blockTimeout,
                       Duration syncTimeout, Duration retention, Duration pruneInterval, Duration closeTimeout,
                       String host, boolean migrate) {

    JournalMode modeOf(String topic) {
        return topicModes.getOrDefault(topic, defaultMode);
    }

    /** The settings' builder, extended by the journal's own. */
    abstract static class Builder<B extends Builder<B>> {

        private final DataSource dataSource;
        private JournalMode defaultMode = JournalMode.ASYNC;
        private final Map<String, JournalMode> topicModes = new HashMap<>();
        private int bufferCapacity = 50_000;
        private int batchSize = 500;
        private WhenUnavailable whenUnavailable = WhenUnavailable.BLOCK;
        private Duration blockTimeout = Duration.ofSeconds(10);
        private Duration syncTimeout = Duration.ofSeconds(10);
        private Duration retention = Duration.ofDays(7);
        private Duration pruneInterval = Duration.ofMinutes(1);
        private Duration closeTimeout = Duration.ofSeconds(10);
        private String host = JdbcJournal.localHost();
        private boolean migrate = true;

        Builder(DataSource dataSource) {
            if (dataSource == null) {
                throw new IllegalArgumentException("dataSource must not be null");
            }
            this.dataSource = dataSource;
        }

        @SuppressWarnings("unchecked")
        private B self() {
            return (B) this;
        }

        /** The mode of every topic without one of its own; {@link JournalMode#ASYNC} by default. */
        public B mode(JournalMode value) {
            this.defaultMode = required("mode", value);
            return self();
        }

        /** One topic's mode. */
        public B mode(String topic, JournalMode value) {
            topicModes.put(Names.check("topic", topic), required("mode of topic " + topic, value));
            return self();
        }

        /** The most rows that wait for the writer (a burst of consumption writes two per message); 50,000 by default. */
        public B bufferCapacity(int value) {
            this.bufferCapacity = within("bufferCapacity", value, 1, 10_000_000);
            return self();
        }

        /** The most rows one transaction writes; 500 by default. */
        public B batchSize(int value) {
            this.batchSize = within("batchSize", value, 1, 100_000);
            return self();
        }

        /** What sends do when the buffer is full; {@link WhenUnavailable#BLOCK} by default. */
        public B whenUnavailable(WhenUnavailable value) {
            this.whenUnavailable = required("whenUnavailable", value);
            return self();
        }

        /** How long a send waits for room in a full buffer before it fails; 10 s by default. */
        public B blockTimeout(Duration value) {
            this.blockTimeout = positive("blockTimeout", value);
            return self();
        }

        /** How long a synchronous send waits for its row to commit before it fails; 10 s by default. */
        public B syncTimeout(Duration value) {
            this.syncTimeout = positive("syncTimeout", value);
            return self();
        }

        /** How long a finished message is kept; 7 days by default, zero keeps all. */
        public B retention(Duration value) {
            if (value == null || value.isNegative()) {
                throw new IllegalArgumentException("retention must be zero (keep all) or positive, was " + value);
            }
            this.retention = value;
            return self();
        }

        /**
         * How often messages past the retention are removed (finished ones, and open ones whose time to live ran out);
         * every minute by default.
         */
        public B pruneInterval(Duration value) {
            this.pruneInterval = positive("pruneInterval", value);
            return self();
        }

        /** How long a close waits for the buffered rows to be written; 10 s by default. */
        public B closeTimeout(Duration value) {
            this.closeTimeout = positive("closeTimeout", value);
            return self();
        }

        /** The host name written with each transition; this machine's by default. */
        public B host(String value) {
            if (value == null || value.isBlank() || value.length() > 200) {
                throw new IllegalArgumentException("host must be 1 to 200 characters, was " + value);
            }
            this.host = value;
            return self();
        }

        /** Whether {@code build()} creates and migrates the schema with Flyway; true by default. */
        public B migrate(boolean value) {
            this.migrate = value;
            return self();
        }

        JournalSettings settings() {
            return new JournalSettings(dataSource, defaultMode, Map.copyOf(topicModes), bufferCapacity, batchSize,
                    whenUnavailable, blockTimeout, syncTimeout, retention, pruneInterval, closeTimeout, host, migrate);
        }

        private static <T> T required(String what, T value) {
            if (value == null) {
                throw new IllegalArgumentException(what + " must not be null");
            }
            return value;
        }

        private static int within(String what, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(what + " must be in " + min + ".." + max + ", was " + value);
            }
            return value;
        }

        private static Duration positive(String what, Duration value) {
            if (value == null || value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(what + " must be a positive duration, was " + value);
            }
            return value;
        }
    }
}
