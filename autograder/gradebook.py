"""Record autograded scores in the course's nbgrader gradebook, so the formgrader, manual grading
and ``nbgrader export`` see them. Only the trusted process writes, one student at a time."""
from contextlib import contextmanager

from nbgrader.api import Gradebook, MissingEntry
from sqlalchemy.exc import SQLAlchemyError

from autograder.course import CourseError

COURSE_ID = "finite"


@contextmanager
def course_gradebook(course):
    """The course's gradebook (``gradebook.db`` at the course root); CourseError if unusable."""
    try:
        with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}", course_id=COURSE_ID) as gradebook:
            yield gradebook
    except SQLAlchemyError as error:
        raise CourseError(f"the course gradebook {course.root / 'gradebook.db'} cannot be written: "
                          f"{str(error).splitlines()[0][:200]}") from None


def register_assignment(gradebook, generated, assignment_id: str) -> None:
    """Copy the assignment's notebook and graded cells from the gradebook nbgrader generated."""
    with Gradebook(generated, course_id=COURSE_ID) as source:
        master = source.find_assignment(assignment_id)
        gradebook.update_or_create_assignment(assignment_id)
        for notebook in master.notebooks:
            gradebook.update_or_create_notebook(notebook.name, assignment_id)
            for cell in notebook.grade_cells:
                gradebook.update_or_create_grade_cell(cell.name, notebook.name, assignment_id,
                                                      max_score=cell.max_score, cell_type=cell.cell_type)
            for cell in notebook.solution_cells:
                gradebook.update_or_create_solution_cell(cell.name, notebook.name, assignment_id)
            for cell in notebook.source_cells:
                gradebook.update_or_create_source_cell(cell.name, notebook.name, assignment_id, source=cell.source,
                                                       cell_type=cell.cell_type, locked=cell.locked,
                                                       checksum=cell.checksum)


def record(gradebook, result) -> None:
    """Write one student's autograded scores: all of them, or (on any failure) none."""
    assignment_id, student = result.assignment, result.student
    gradebook.update_or_create_student(student)
    try:
        gradebook.find_submission(assignment_id, student)
        created = False
    except MissingEntry:
        gradebook.add_submission(assignment_id, student)
        created = True
    try:
        for test, points in result.scores.items():
            gradebook.find_grade(test, assignment_id, assignment_id, student).auto_score = points
        gradebook.db.commit()
    except BaseException:
        gradebook.db.rollback()
        if created:
            gradebook.remove_submission(assignment_id, student)
        raise
