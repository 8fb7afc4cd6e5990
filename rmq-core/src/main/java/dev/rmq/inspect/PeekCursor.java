package dev.rmq.inspect;

import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a paged peek of a whole topic goes on from: how far it has read into each slot, and in which order.
 * {@link #first()} and {@link #newestFirst()} start a peek; each {@link PeekPage} gives the cursor of the next. A
 * cursor travels as text ({@link #token()}, {@link #parse(String)}), for a page asked over HTTP.
 *
 * <p>A cursor holds positions, not messages: a message taken, sent or moved between two pages can shift what the
 * next page shows, so a message may be shown twice or not at all across pages; each page is read at one moment.
 */
public final class PeekCursor {

    private static final String FIRST = "f";
    private static final String NEWEST = "n";

    private final boolean newestFirst;
    /** How many entries of each slot the pages so far took; a slot left out took none. */
    private final Map<Integer, Long> offsets;

    private PeekCursor(boolean newestFirst, Map<Integer, Long> offsets) {
        this.newestFirst = newestFirst;
        this.offsets = Map.copyOf(offsets);
    }

    /** From the start, in the order consumers take the messages. */
    public static PeekCursor first() {
        return new PeekCursor(false, Map.of());
    }

    /**
     * From the other end: what consumers take last comes first. On a priority topic that is the messages not
     * visible yet, the last to become visible first, then the visible ones from the lowest priority; on a
     * range-merge or fixed-time topic, the latest due first.
     */
    public static PeekCursor newestFirst() {
        return new PeekCursor(true, Map.of());
    }

    /** Whether the pages run from what consumers take last. */
    public boolean isNewestFirst() {
        return newestFirst;
    }

    /** How many entries of {@code slot} the pages so far took. */
    public long offset(int slot) {
        return offsets.getOrDefault(slot, 0L);
    }

    /** The slots the pages so far read into. */
    public java.util.Set<Integer> slots() {
        return offsets.keySet();
    }

    /** The cursor after a page that took {@code taken} more entries of each slot: what an inspector's page gives. */
    public PeekCursor advance(Map<Integer, Integer> taken) {
        Map<Integer, Long> next = new TreeMap<>(offsets);
        taken.forEach((slot, count) -> next.merge(slot, (long) count, Long::sum));
        return new PeekCursor(newestFirst, next);
    }

    /** The cursor as text, URL-safe: what {@link #parse(String)} reads back. */
    public String token() {
        StringBuilder text = new StringBuilder(newestFirst ? NEWEST : FIRST);
        new TreeMap<>(offsets).forEach((slot, offset) -> text.append(';').append(slot).append(':').append(offset));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The cursor a page asks for in text, as an HTTP query does: {@code cursor}, a token an earlier page gave, or for a
     * first page {@code order}, {@code first} (the order consumers take messages in, also when both are null) or
     * {@code newest} (the reverse).
     *
     * @throws IllegalArgumentException for both at once, an unknown order, or a cursor that is not one
     */
    public static PeekCursor of(@Nullable String cursor, @Nullable String order) {
        if (cursor != null) {
            if (order != null) {
                throw new IllegalArgumentException("order goes only with a first page: the cursor carries the order"
                        + " it was started with");
            }
            try {
                return parse(cursor);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("cursor: " + e.getMessage(), e);
            }
        }
        return switch (order == null ? "first" : order) {
            case "first" -> first();
            case "newest" -> newestFirst();
            default -> throw new IllegalArgumentException("order is first (the order consumers take messages in) or"
                    + " newest (the reverse), was '" + order + "'");
        };
    }

    /**
     * Reads a cursor that {@link #token()} wrote.
     *
     * @throws IllegalArgumentException when {@code token} is not one
     */
    public static PeekCursor parse(String token) {
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("cursor must not be empty; start with PeekCursor.first() or"
                    + " PeekCursor.newestFirst(), then pass the cursor each page gives");
        }
        String text;
        try {
            text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw notACursor(token);
        }
        String[] parts = text.split(";", -1);
        if (!parts[0].equals(FIRST) && !parts[0].equals(NEWEST)) {
            throw notACursor(token);
        }
        Map<Integer, Long> offsets = new TreeMap<>();
        for (int i = 1; i < parts.length; i++) {
            String[] pair = parts[i].split(":", -1);
            try {
                int slot = Integer.parseInt(pair[0]);
                long offset = Long.parseLong(pair[1]);
                if (pair.length != 2 || slot < 0 || offset < 0 || offsets.put(slot, offset) != null) {
                    throw notACursor(token);
                }
            } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
                throw notACursor(token);
            }
        }
        return new PeekCursor(parts[0].equals(NEWEST), offsets);
    }

    private static IllegalArgumentException notACursor(String token) {
        return new IllegalArgumentException("'" + (token.length() > 40 ? token.substring(0, 40) + "..." : token)
                + "' is not a cursor that a page of rmq gave");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PeekCursor c && newestFirst == c.newestFirst && offsets.equals(c.offsets);
    }

    @Override
    public int hashCode() {
        return Boolean.hashCode(newestFirst) * 31 + offsets.hashCode();
    }

    @Override
    public String toString() {
        return "PeekCursor[" + (newestFirst ? "newest first" : "first") + ", " + new TreeMap<>(offsets) + "]";
    }
}
