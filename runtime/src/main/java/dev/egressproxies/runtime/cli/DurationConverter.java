package dev.egressproxies.runtime.cli;

import dev.egressproxies.registry.DurationFormat;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads a duration option in the same syntax as config files ({@code 30s}, {@code 5m}, {@code PT1H}). */
final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            Duration duration = DurationFormat.parse(value);
            if (duration.isZero()) {
                throw new TypeConversionException("'" + value + "' is zero; give a positive duration such as 30s");
            }
            return duration;
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
