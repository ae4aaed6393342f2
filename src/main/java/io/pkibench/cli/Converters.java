package io.pkibench.cli;

import io.pkibench.plan.Iterations;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** picocli converters; their messages are printed after "Invalid value for option '--flag':". */
final class Converters {
  private Converters() {}

  static final class ToIterations implements ITypeConverter<Iterations> {
    @Override
    public Iterations convert(String value) {
      try {
        return Iterations.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
