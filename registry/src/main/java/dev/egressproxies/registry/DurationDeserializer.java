package dev.egressproxies.registry;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import java.io.IOException;
import java.time.Duration;

/**
 * The Jackson deserializer of {@link Duration} settings, which reads strings in the
 * {@link DurationFormat} syntax. Numbers are
 * rejected: a bare {@code 30} could mean seconds or milliseconds, and guessing wrong is worse than
 * asking for a unit.
 */
final class DurationDeserializer extends StdScalarDeserializer<Duration> {
    private static final long serialVersionUID = 1L;

    DurationDeserializer() {
        super(Duration.class);
    }

    @Override
    public Duration deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        if (!parser.hasToken(JsonToken.VALUE_STRING)) {
            return (Duration) context.handleUnexpectedToken(Duration.class, parser);
        }
        String text = parser.getText();
        try {
            return DurationFormat.parse(text);
        } catch (IllegalArgumentException invalid) {
            // Our own message, not Jackson's generic one, so it can be shown as is.
            throw InvalidFormatException.from(parser, invalid.getMessage(), text, Duration.class);
        }
    }
}
