package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.output.OutputFormat;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads {@code -o table} or {@code -o json}, in any case. */
final class OutputFormatConverter implements ITypeConverter<OutputFormat> {
    @Override
    public OutputFormat convert(String value) {
        try {
            return OutputFormat.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException("'" + value + "' is not an output format: use table or json");
        }
    }
}
