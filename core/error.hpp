// Typed errors that say where they were raised and what went wrong.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tessel {

/// Base of every tessel error: the message carries the source location `file:line`.
class Error : public std::runtime_error {
public:
    Error(const std::string& file, int line, const std::string& what);
    /// The message without the source location (what a user sees).
    const std::string& message() const noexcept { return message_; }
    const std::string& source_file() const noexcept { return file_; }
    int source_line() const noexcept { return line_; }

private:
    std::string file_;
    int line_;
    std::string message_;
};

/// Operand sizes that do not fit together.
class DimensionMismatch : public Error {
public:
    using Error::Error;
};

/// Bad input data. `input` names the file (or dataset), `place` the line or element;
/// message() reads "input:place: what" (place omitted when 0).
class InvalidInput : public Error {
public:
    InvalidInput(const std::string& file, int line, const std::string& input,
                 std::int64_t place, const std::string& what);
    const std::string& input() const noexcept { return input_; }
    std::int64_t place() const noexcept { return place_; }

private:
    std::string input_;
    std::int64_t place_;
};

/// A backend that this build does not contain (for example cuda without nvcc).
class NotCompiled : public Error {
public:
    using Error::Error;
};

/// A CUDA runtime, cuBLAS or cuSPARSE call failed.
class CudaError : public Error {
public:
    using Error::Error;
};

/// An MPI call failed.
class MpiError : public Error {
public:
    using Error::Error;
};

/// An HDF5 call failed.
class Hdf5Error : public Error {
public:
    using Error::Error;
};

/// The work does not fit in the memory budget; the message says what would fit.
class OutOfMemoryBudget : public Error {
public:
    using Error::Error;
};

}  // namespace tessel

/// Throws `Type` with the current source location and a message.
#define TESSEL_THROW(Type, msg) throw Type(__FILE__, __LINE__, (msg))

/// Throws InvalidInput naming the input and the place in it (line, element; 0 = none).
#define TESSEL_INVALID_INPUT(input, place, msg) \
    throw ::tessel::InvalidInput(__FILE__, __LINE__, (input), (place), (msg))

/// Throws DimensionMismatch unless `cond` holds.
#define TESSEL_ENSURE_DIMS(cond, msg)                                    \
    do {                                                                 \
        if (!(cond)) TESSEL_THROW(::tessel::DimensionMismatch, (msg));   \
    } while (0)
