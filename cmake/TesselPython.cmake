# The Python module `tessel` (pybind11 + numpy), built when Debian's pybind11-dev and
# python3-numpy are there: TESSEL_PYTHON AUTO builds it when found, ON insists, OFF skips.
# Sets TESSEL_HAVE_PYTHON. Included before the libraries are defined: the module links them,
# so they are compiled position independent.
set(TESSEL_PYTHON "AUTO" CACHE STRING "Build the Python module: AUTO, ON or OFF")
set_property(CACHE TESSEL_PYTHON PROPERTY STRINGS AUTO ON OFF)
set(TESSEL_HAVE_PYTHON OFF)
if(NOT TESSEL_PYTHON STREQUAL "OFF")
  # The first python3 on PATH may be one without numpy (pyenv); the system one is tried next.
  if(NOT DEFINED Python3_EXECUTABLE)
    find_program(tessel_path_python3 NAMES python3 NO_CACHE)
    foreach(candidate IN ITEMS ${tessel_path_python3} /usr/bin/python3)
      if(EXISTS ${candidate})
        execute_process(COMMAND ${candidate} -c "import numpy" RESULT_VARIABLE numpy_missing
                        OUTPUT_QUIET ERROR_QUIET)
        if(numpy_missing EQUAL 0)
          set(Python3_EXECUTABLE ${candidate} CACHE FILEPATH "Python of the tessel module")
          break()
        endif()
      endif()
    endforeach()
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module NumPy)
  if(Python3_FOUND AND Python3_NumPy_FOUND)
    find_package(pybind11 CONFIG)
  endif()
  if(Python3_FOUND AND Python3_NumPy_FOUND AND pybind11_FOUND)
    set(TESSEL_HAVE_PYTHON ON)
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  elseif(TESSEL_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "TESSEL_PYTHON=ON but python3 with numpy and pybind11 (pybind11-dev, python3-numpy) "
                        "were not found")
  endif()
endif()
message(STATUS "tessel: Python module ${TESSEL_HAVE_PYTHON}")
