package dev.rmq.topic;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Routes a slot basis to a slot: {@code CRC32(UTF-8 bytes of slotBasis) mod slotAmount}, where CRC32
 * is the standard IEEE polynomial (zlib's {@code crc32}, Python's {@code zlib.crc32}, Go's
 * {@code crc32.ChecksumIEEE}) read as an unsigned 32-bit number. Any language can compute the same slot.
 */
public final class SlotRouter {

    private SlotRouter() {
    }

    /** The slot of {@code slotBasis} in a topic of {@code slotAmount} slots. */
    public static int slotOf(String slotBasis, int slotAmount) {
        if (slotBasis == null) {
            throw new IllegalArgumentException("slotBasis must not be null");
        }
        if (slotAmount < 1) {
            throw new IllegalArgumentException("slotAmount must be at least 1, was " + slotAmount);
        }
        CRC32 crc = new CRC32();
        crc.update(slotBasis.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % slotAmount);
    }
}
