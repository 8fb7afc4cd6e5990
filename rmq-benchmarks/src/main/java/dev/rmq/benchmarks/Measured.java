package dev.rmq.benchmarks;

/**
 * One repetition of a throughput case.
 *
 * @param messages messages sent or consumed
 * @param seconds  the wall time they took
 * @param cost     what Redis spent meanwhile
 */
record Measured(long messages, double seconds, RedisProbe.Cost cost) {

    double rate() {
        return messages / seconds;
    }

    double cpuMicrosPerMessage() {
        return cost.cpuMicrosPer(messages);
    }

    /** The client's CPU per message: all of this JVM, which runs nothing else meanwhile. */
    double jvmCpuMicrosPerMessage() {
        return cost.jvmCpuMicrosPer(messages);
    }

    /** The bytes the client allocated per message, all of this JVM's threads. */
    double jvmAllocatedBytesPerMessage() {
        return cost.jvmAllocatedBytesPer(messages);
    }

    double callsPerMessage(String command) {
        return cost.callsPer(command, messages);
    }
}
